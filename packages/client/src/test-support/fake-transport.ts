/**
 * A Transport that answers from a function instead of a server, recording every request: the unit tests'
 * way to script lost answers, 429s and odd bodies. (The contract tests in test/ use the real server.)
 */
import type { Transport, TransportRequest, TransportResponse } from '../transport.js';

export type Handler = (
  request: TransportRequest,
  index: number,
) => TransportResponse | Promise<TransportResponse>;

export interface FakeTransport extends Transport {
  requests: TransportRequest[];
  closed: boolean;
}

export function fakeTransport(handler: Handler): FakeTransport {
  const fake: FakeTransport = {
    requests: [],
    closed: false,
    async request(request) {
      fake.requests.push(request);
      return handler(request, fake.requests.length - 1);
    },
    close() {
      fake.closed = true;
      return Promise.resolve();
    },
  };
  return fake;
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): TransportResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: new TextEncoder().encode(JSON.stringify(body)),
  };
}

export function textResponse(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): TransportResponse {
  return { status, headers, body: new TextEncoder().encode(text) };
}

/** A clock that only moves when the client sleeps: deadlines without wall-clock time. */
export interface FakeClock {
  nowMs: number;
  sleeps: number[];
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function fakeClock(): FakeClock {
  const clock: FakeClock = {
    nowMs: 0,
    sleeps: [],
    now: () => clock.nowMs,
    sleep: (ms, signal) => {
      if (signal?.aborted === true) return Promise.reject(new Error('aborted'));
      clock.sleeps.push(ms);
      clock.nowMs += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

/** The path and query of a recorded request, e.g. `/trips.json`. */
export function pathOf(request: TransportRequest): string {
  return new URL(request.url).pathname;
}

export function queryOf(request: TransportRequest): URLSearchParams {
  return new URL(request.url).searchParams;
}
