/**
 * How requests reach a server (issue: "Transport injectable (tests route it into `app.inject()`); real
 * transport `undici` with keep-alive"). A transport only moves bytes: it never retries, never reads
 * statuses, and reports failures to get a response as ClientError (UNREACHABLE, TIMEOUT, ABORTED).
 */
import { Agent, request as undiciRequest } from 'undici';
import { ClientError, ClientErrorCode } from './errors.js';
import { throwIfAborted } from './timing.js';

/** The HTTP methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One HTTP request, as the client hands it to a `Transport`. */
export interface TransportRequest {
  method: HttpMethod;
  /** absolute URL */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
  signal?: AbortSignal;
}

/** One HTTP response, as a `Transport` hands it back, body read whole. */
export interface TransportResponse {
  status: number;
  /** lower-case names; repeated headers joined with ", " */
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * What sends the client's requests: `undiciTransport()` (the default), `injectTransport()` for
 * tests, or your own.
 */
export interface Transport {
  /** Sends one request and reads its whole response; rejects when the connection fails or `signal` fires. */
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Closes what the transport holds open (sockets). */
  close(): Promise<void>;
}

/** Connection settings of `undiciTransport`. */
export interface UndiciTransportOptions {
  /** sockets per origin; default 8 */
  connections?: number;
  /** an idle socket is kept this long for the next request, ms; default 10 s */
  keepAliveTimeoutMs?: number;
  /** waiting for the response headers, ms; default 60 s (a large upload is answered once stored) */
  headersTimeoutMs?: number;
  /** waiting between body chunks, ms; default 60 s */
  bodyTimeoutMs?: number;
}

/** A header value as Node and Fastify give it. */
export type HeaderValue = string | string[] | number | undefined;

/** Lower-case names, one string per header. */
export function normalizeHeaders(headers: Record<string, HeaderValue>): Record<string, string> {
  const normalized: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    normalized[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return normalized;
}

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** A failure to get a response, as the client's error (UNREACHABLE unless it is a timeout or abort). */
export function transportError(error: unknown, request: TransportRequest): ClientError {
  if (error instanceof ClientError) return error;
  const what = `${request.method} ${pathOf(request.url)}`;
  if (request.signal?.aborted === true) {
    return new ClientError(ClientErrorCode.ABORTED, `${what} was aborted`, { cause: request.signal.reason });
  }
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new ClientError(ClientErrorCode.TIMEOUT, `${what}: no response in time (${code})`, {
      cause: error,
    });
  }
  const detail = typeof code === 'string' ? `${code}: ${message}` : message;
  return new ClientError(ClientErrorCode.UNREACHABLE, `${what}: no response (${detail})`, { cause: error });
}

/** The path of a URL without its query, which may hold credentials (legacy `auth_token`, `password`). */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?', 1)[0] ?? url;
  }
}

/**
 * The real transport: one undici Agent, so sockets are kept alive and reused between the many small
 * requests of polling and pagination. Redirects are not followed (credentials are never re-sent to
 * wherever a redirect points).
 */
export function undiciTransport(options: UndiciTransportOptions = {}): Transport {
  const agent = new Agent({
    connections: options.connections ?? 8,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  });
  return {
    async request(request) {
      throwIfAborted(request.signal);
      try {
        const response = await undiciRequest(request.url, {
          dispatcher: agent,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        });
        const body = new Uint8Array(await response.body.arrayBuffer());
        return { status: response.statusCode, headers: normalizeHeaders(response.headers), body };
      } catch (error) {
        throw transportError(error, request);
      }
    },
    close: () => agent.close(),
  };
}

/** What injectTransport sends to `inject` (the parts of Fastify's InjectOptions it uses). */
export interface InjectRequest {
  method: HttpMethod;
  /** path and query */
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** What `inject` answers (the parts of light-my-request's Response it reads). */
export interface InjectResponse {
  statusCode: number;
  headers: Record<string, HeaderValue>;
  rawPayload: Uint8Array;
}

/** Fastify's `app.inject`, typed by shape so that this package imports neither Fastify nor the server. */
export type InjectFunction = (request: InjectRequest) => PromiseLike<InjectResponse>;

/**
 * A transport into `app.inject()` (issue: "tests route it into `app.inject()`"): the same requests,
 * bytes and headers, without a socket. Only the path and query of the URL are used.
 */
export function injectTransport(inject: InjectFunction): Transport {
  return {
    async request(request) {
      throwIfAborted(request.signal);
      const url = new URL(request.url);
      const payload =
        request.body === undefined
          ? undefined
          : typeof request.body === 'string'
            ? request.body
            : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      try {
        const response = await abortable(
          inject({
            method: request.method,
            url: `${url.pathname}${url.search}`,
            headers: request.headers,
            ...(payload === undefined ? {} : { payload }),
          }),
          request.signal,
        );
        return {
          status: response.statusCode,
          headers: normalizeHeaders(response.headers),
          body: new Uint8Array(response.rawPayload),
        };
      } catch (error) {
        throw transportError(error, request);
      }
    },
    close: () => Promise.resolve(),
  };
}

/** `work`, or a rejection as soon as the signal fires (inject itself cannot be cancelled). */
function abortable<T>(work: PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return Promise.resolve(work);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
