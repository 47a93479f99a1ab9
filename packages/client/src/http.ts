/**
 * One request to the API, the way every endpoint wants it: URL under the base URL, `accept:
 * application/json` and the user agent, the body, the answer's status mapped to the error catalogue,
 * and 429s waited out (docs/contributors/decisions.md §7: "rate-limited … 429 with Retry-After"). A 429 means the server
 * did not act on the request, so even a POST may be sent again after it; nothing else is retried here
 * (issue: "Never retries a non-idempotent request blindly"; retries that need judgement live with the
 * operation that can judge, see upload-ride.ts).
 */
import { ClientError, ClientErrorCode, errorFromResponse, excerpt } from './errors.js';
import { parseRetryAfterMs, pause, throwIfAborted, type Sleep } from './timing.js';
import {
  pathOf,
  transportError,
  type HttpMethod,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

export type QueryValue = string | number | boolean | undefined;
export type Query = Record<string, QueryValue>;

/** When a 429 names no Retry-After: wait this long, ms. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

export interface HttpSettings {
  baseUrl: URL;
  transport: Transport;
  userAgent: string;
  sleep: Sleep;
  /** monotonic ms, for deadlines */
  now: () => number;
  maxRateLimitRetries: number;
  /**
   * a Retry-After longer than this is not waited out in place: the RATE_LIMITED error carries it, for
   * the caller to schedule (a sync engine should not hold a request open for an hour)
   */
  maxRateLimitWaitMs: number;
}

/** What every call takes: a signal to cancel it, and a deadline for the waits it may make. */
export interface CallOptions {
  signal?: AbortSignal;
  /** in `now()` ms: a Retry-After that would end past it is not waited out */
  deadlineAtMs?: number;
}

export type RequestBody = { json: unknown } | { bytes: Uint8Array; contentType: string };

export interface Call extends CallOptions {
  method: HttpMethod;
  /** a path under the base URL (`/api/v1/routes.json`), or an absolute URL from a response */
  path: string;
  query?: Query;
  headers?: Record<string, string>;
  body?: RequestBody;
}

export class Http {
  readonly #settings: HttpSettings;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
  }

  get now(): () => number {
    return this.#settings.now;
  }

  /** Waits `ms` with the injected sleep; ABORTED when the signal fires. */
  pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return pause(this.#settings.sleep, ms, signal);
  }

  /**
   * The absolute URL of `path` (below the base URL, whose own path is kept: the server may sit behind a
   * proxy under a prefix) with `query`.
   */
  url(path: string, query: Query = {}): URL {
    const base = this.#settings.baseUrl;
    const url = /^https?:\/\//i.test(path)
      ? this.onBaseOrigin(new URL(path))
      : new URL(`${base.pathname.replace(/\/+$/, '')}${path}`, base.origin);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /**
   * An absolute URL from a response (`next_page_url`) on the origin this client was configured with.
   * The server builds such URLs from its configured public base URL, which need not be how this client
   * reaches it (a server on port 0, a tunnel); and credentials must never follow a URL a response names
   * to another origin. The path and query are the server's; the origin is ours.
   */
  onBaseOrigin(url: URL): URL {
    const base = this.#settings.baseUrl;
    return url.origin === base.origin ? url : new URL(`${url.pathname}${url.search}`, base.origin);
  }

  /** Sends the call until it is answered with anything but a 429 that may be waited out; 2xx only. */
  async send(call: Call): Promise<TransportResponse> {
    const { transport, sleep, now, maxRateLimitRetries, maxRateLimitWaitMs } = this.#settings;
    const request = this.#request(call);
    const what = `${call.method} ${pathOf(request.url)}`;
    for (let attempt = 0; ; attempt += 1) {
      throwIfAborted(call.signal);
      let response: TransportResponse;
      try {
        response = await transport.request(request);
      } catch (error) {
        throw transportError(error, request);
      }
      if (response.status >= 200 && response.status < 300) return response;
      if (response.status === 503) {
        // Service Unavailable (the server's database out of reach, issue 18): not retried here, since
        // the request may have been acted on, but the wait the server asked for goes to the caller.
        const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], Date.now());
        throw errorFromResponse(what, 503, response.body, retryAfterMs);
      }
      if (response.status !== 429) throw errorFromResponse(what, response.status, response.body);
      const retryAfterMs =
        parseRetryAfterMs(response.headers['retry-after'], Date.now()) ?? DEFAULT_RETRY_AFTER_MS;
      const pastDeadline = call.deadlineAtMs !== undefined && now() + retryAfterMs > call.deadlineAtMs;
      if (attempt >= maxRateLimitRetries || retryAfterMs > maxRateLimitWaitMs || pastDeadline) {
        throw errorFromResponse(what, 429, response.body, retryAfterMs);
      }
      await pause(sleep, retryAfterMs, call.signal);
    }
  }

  /** Sends the call and reads its answer as a JSON object. */
  async json(call: Call): Promise<Record<string, unknown>> {
    const response = await this.send(call);
    return readJsonObject(response, `${call.method} ${pathOf(this.url(call.path).href)}`);
  }

  #request(call: Call): TransportRequest {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#settings.userAgent,
      ...call.headers,
    };
    let body: Uint8Array | string | undefined;
    if (call.body !== undefined && 'json' in call.body) {
      body = JSON.stringify(call.body.json);
      headers['content-type'] = 'application/json';
    } else if (call.body !== undefined) {
      body = call.body.bytes;
      headers['content-type'] = call.body.contentType;
    }
    return {
      method: call.method,
      url: this.url(call.path, call.query).href,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    };
  }
}

/** The body as a JSON object; BAD_RESPONSE with a short excerpt when it is anything else. */
export function readJsonObject(response: TransportResponse, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body));
  } catch (error) {
    throw new ClientError(
      ClientErrorCode.BAD_RESPONSE,
      `${what} answered ${response.status} with a body that is not JSON: ${excerpt(response.body) || '(empty body)'}`,
      { status: response.status, cause: error },
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ClientError(
      ClientErrorCode.BAD_RESPONSE,
      `${what} answered ${response.status} with JSON that is not an object: ${excerpt(response.body)}`,
      { status: response.status },
    );
  }
  return parsed as Record<string, unknown>;
}

/**
 * `json[key]` as `T` after checking that it is an object (or an array, with `array`). Only the root is
 * checked: the records' fields are the server's contract (docs/contributors/decisions.md §2) and new keys are allowed.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the record type it expects
export function rootOf<T>(json: Record<string, unknown>, key: string, what: string, array = false): T {
  const value = json[key];
  const ok = array
    ? Array.isArray(value)
    : typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!ok) {
    throw new ClientError(
      ClientErrorCode.BAD_RESPONSE,
      `${what}: the answer has no ${array ? 'array' : 'object'} under "${key}": ${excerpt(new TextEncoder().encode(JSON.stringify(json)))}`,
    );
  }
  return value as T;
}
