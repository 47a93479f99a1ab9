/**
 * One webhook request (docs/contributors/decisions.md §6): a POST with undici through an Agent whose connections are
 * made only to addresses the target policy allows (targets.ts), bounded by the request timeout from
 * the first byte sent to the status line and body received, never following redirects (undici's
 * `request` follows none unless a redirect interceptor is composed in; none is). Only a 2xx is
 * success; the caller decides what a failure means.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import {
  guardedLookup,
  refusalOfUrl,
  TARGET_REFUSED,
  type ResolveHost,
  type TargetPolicy,
} from './targets.js';

export interface PostResult {
  /** a 2xx arrived in time */
  ok: boolean;
  /** the answer's status, null when there was none */
  statusCode: number | null;
  /** why there was no answer (refused target, timeout, connection error), null when there was one */
  error: string | null;
  /**
   * the target policy refused the target (targets.ts): no request was made, and none ever will be, so
   * the delivery fails at once (issue 17)
   */
  refused: boolean;
  durationMs: number;
  /** the attempt was cut short because the dispatcher is stopping: it says nothing about the target */
  interrupted: boolean;
}

export interface PosterOptions extends TargetPolicy {
  requestTimeoutMs: number;
  /** resolves target names; default the system resolver */
  resolveHost: ResolveHost | null;
}

/** At most this much of an answer's body is read (and thrown away); a longer one closes the connection. */
const ANSWER_BYTES_READ = 64 * 1024;

/** Errors are logged and shown on the developer settings page; they stay one short line. */
const ERROR_MAX_LENGTH = 300;

export class WebhookPoster {
  readonly #options: PosterOptions;
  readonly #agent: Agent;

  constructor(options: PosterOptions) {
    this.#options = options;
    const lookup =
      options.resolveHost === null ? guardedLookup(options) : guardedLookup(options, options.resolveHost);
    this.#agent = new Agent({
      connect: { lookup, timeout: options.requestTimeoutMs },
      headersTimeout: options.requestTimeoutMs,
      bodyTimeout: options.requestTimeoutMs,
    });
  }

  /** POSTs `body`; `stop` aborts it (the result is then `interrupted`). Never throws. */
  async post(
    url: string,
    body: Buffer,
    headers: Record<string, string>,
    stop: AbortSignal,
  ): Promise<PostResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    const failed = (error: string, refused = false): PostResult => ({
      ok: false,
      statusCode: null,
      error: error.slice(0, ERROR_MAX_LENGTH),
      refused,
      durationMs: elapsed(),
      interrupted: stop.aborted,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return failed(refusedWords(`not an absolute URL: ${url}`), true);
    }
    const refusal = refusalOfUrl(target, this.#options);
    if (refusal !== null) return failed(refusedWords(refusal), true);

    // One controller for the timeout and `stop`, linked by a listener removed when the post ends, not
    // AbortSignal.any: in Node 20 that leaves a reference on `stop`, which lives as long as the server,
    // for every delivery, for good (issue 22).
    const controller = new AbortController();
    const deadline = { passed: false };
    const timer = setTimeout(() => {
      deadline.passed = true;
      controller.abort(new Error(`timed out after ${this.#options.requestTimeoutMs} ms`));
    }, this.#options.requestTimeoutMs);
    const stopped = (): void => {
      controller.abort(stop.reason);
    };
    if (stop.aborted) stopped();
    else stop.addEventListener('abort', stopped, { once: true });
    const signal = controller.signal;
    try {
      const response = await request(target, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        signal,
      });
      // The answer's body is not needed; reading it frees the connection for the next delivery.
      await response.body.dump({ limit: ANSWER_BYTES_READ, signal }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        ok,
        statusCode: response.statusCode,
        error: null,
        refused: false,
        durationMs: elapsed(),
        interrupted: stop.aborted,
      };
    } catch (error) {
      if (stop.aborted) return failed('interrupted: the server is stopping');
      if (deadline.passed) return failed(`timed out after ${this.#options.requestTimeoutMs} ms`);
      const refused = refusalIn(error);
      return refused === null ? failed(describeError(error)) : failed(refusedWords(refused), true);
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', stopped);
    }
  }

  /** Drops every connection and aborts what is still running. */
  async close(): Promise<void> {
    await this.#agent.destroy();
  }
}

/**
 * What the delivery log says of a refused target (the developer settings page shows it): why, and
 * that it is final.
 */
function refusedWords(reason: string): string {
  return `refused: ${reason}; the server does not send webhooks there, so the notifications failed without a retry`;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current instanceof Error && chain.length < 5; current = current.cause) {
    chain.push(current);
  }
  return chain;
}

/** The target policy's reason, when the connection was refused by it (guardedLookup); else null. */
function refusalIn(error: unknown): string | null {
  const refused = causes(error).find((entry) => (entry as NodeJS.ErrnoException).code === TARGET_REFUSED);
  return refused instanceof Error ? refused.message : null;
}

/** One line about a failed request: the innermost cause, with its code. */
function describeError(error: unknown): string {
  const chain = causes(error);
  const innermost = chain.at(-1);
  if (!(innermost instanceof Error)) return String(error);
  const code = (innermost as NodeJS.ErrnoException).code;
  return code === undefined || innermost.message.includes(code)
    ? innermost.message
    : `${code}: ${innermost.message}`;
}
