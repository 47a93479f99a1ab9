/**
 * Where `serve` and `up` write their lines and pino's log (issue 17, "Faults said in words"): a log
 * destination that fails (a file on a full disk, a pipe whose reader went away) must never take the
 * server down, nor hold up its requests.
 *
 * Lines go to the output's file descriptor with asynchronous writes, so the event loop never waits for
 * the disk or a reader, and at most MAX_PENDING_BYTES of them wait to be written. When a write fails,
 * or more would have to wait, lines are dropped: stderr says so once, in words, and writing is tried
 * again at most once a second; when a write succeeds again, stderr says how many lines were lost. An
 * output without a file descriptor (the tests' captures) is written to directly.
 */
import { write as writeToFd } from 'node:fs';
import type { CliIo, CliWritable } from './io.js';

/** Log lines waiting to be written at most, bytes; past it, lines are dropped. */
export const MAX_PENDING_BYTES = 1024 * 1024;
/** After a failed write, the next try comes this much later, ms; lines meanwhile are dropped. */
export const RETRY_AFTER_FAILURE_MS = 1000;
/** A non-blocking output that is full (EAGAIN) is tried again this soon, ms. */
const RETRY_WHEN_FULL_MS = 50;
const NEWLINE = Buffer.from('\n');

export interface LogDestinationOptions {
  /** monotonic time, ms (tests move it) */
  nowMs?: () => number;
}

export class LogDestination implements CliWritable {
  readonly #output: CliWritable;
  readonly #fd: number | null;
  readonly #stderr: CliWritable;
  readonly #nowMs: () => number;
  readonly #pending: Buffer[] = [];
  #pendingBytes = 0;
  #writing = false;
  /** why lines are being dropped, said once on stderr when it began; null while all is well */
  #trouble: string | null = null;
  /** no write is tried before this (after a failed one) */
  #blockedUntilMs = 0;
  #droppedLines = 0;
  /** the last byte written ended a line (so the output holds no line cut short) */
  #atLineStart = true;
  /** a line was cut short by a failed write: the next write ends it first, so every line stays whole */
  #cutShort = false;
  /** those waiting for every line taken so far to be written or dropped (idle()) */
  readonly #idleWaiters: (() => void)[] = [];

  constructor(output: CliWritable, stderr: CliWritable, options: LogDestinationOptions = {}) {
    this.#output = output;
    this.#fd = output.fd ?? null;
    this.#stderr = stderr;
    this.#nowMs = options.nowMs ?? (() => performance.now());
  }

  /** Takes the line(s) and returns at once; never throws and never asks the caller to wait. */
  write(chunk: string): boolean {
    const bytes = Buffer.from(chunk);
    if (this.#trouble !== null && this.#nowMs() < this.#blockedUntilMs) {
      this.#drop(bytes);
      return true;
    }
    if (this.#pendingBytes + bytes.length > MAX_PENDING_BYTES) {
      this.#beginTrouble(
        `it does not keep up: more than ${MAX_PENDING_BYTES / (1024 * 1024)} MB of lines wait to be written`,
      );
      this.#drop(bytes);
      return true;
    }
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    this.#flush();
    return true;
  }

  /**
   * Resolves once every line taken so far is written or dropped: for whoever must know the lines are
   * out, such as tests, which must not guess how long the writes take (a fixed wait failed under load).
   * (The process itself needs no call: Node does not end while a write is in progress.)
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #isIdle(): boolean {
    return !this.#writing && this.#pending.length === 0;
  }

  #wakeIdleWaiters(): void {
    if (!this.#isIdle()) return;
    for (const waiter of this.#idleWaiters.splice(0)) waiter();
  }

  once(_event: 'drain', listener: () => void): this {
    // write() never returns false, so no one waits for 'drain'; answer at once all the same.
    queueMicrotask(listener);
    return this;
  }

  #flush(): void {
    if (this.#writing || this.#pending.length === 0) {
      this.#wakeIdleWaiters();
      return;
    }
    const bytes = Buffer.concat([...(this.#cutShort ? [NEWLINE] : []), ...this.#pending]);
    this.#cutShort = false;
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    if (this.#fd === null) {
      this.#written(bytes, this.#writeDirectly(bytes));
      this.#wakeIdleWaiters();
      return;
    }
    this.#writing = true;
    writeToFd(this.#fd, bytes, (error, written) => {
      this.#writing = false;
      if (error === null && written > 0) this.#atLineStart = bytes[written - 1] === NEWLINE[0];
      if (error === null && written < bytes.length) {
        // A partial write: the rest goes first next time.
        this.#requeue(bytes.subarray(written));
      } else if (error?.code === 'EAGAIN') {
        this.#requeue(bytes);
        setTimeout(() => {
          this.#flush();
        }, RETRY_WHEN_FULL_MS);
        return;
      } else {
        this.#written(bytes, error);
      }
      this.#flush();
    });
  }

  #writeDirectly(bytes: Buffer): Error | null {
    try {
      this.#output.write(bytes.toString());
      return null;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  #requeue(bytes: Buffer): void {
    this.#pending.unshift(bytes);
    this.#pendingBytes += bytes.length;
  }

  /** The end of a write of `bytes`: failed with `error`, or done. */
  #written(bytes: Buffer, error: Error | null): void {
    if (error !== null) {
      const code = (error as NodeJS.ErrnoException).code;
      this.#beginTrouble(
        code === undefined || error.message.includes(code) ? error.message : `${code}: ${error.message}`,
      );
      this.#blockedUntilMs = this.#nowMs() + RETRY_AFTER_FAILURE_MS;
      if (!this.#atLineStart) this.#cutShort = true;
      // What came in meanwhile goes too: nothing is tried before the block ends.
      this.#drop(bytes);
      for (const waiting of this.#pending) this.#drop(waiting);
      this.#pending.length = 0;
      this.#pendingBytes = 0;
      return;
    }
    if (this.#trouble !== null && this.#pending.length === 0) {
      this.#say(`the log is written again; ${plural(this.#droppedLines, 'line was', 'lines were')} dropped`);
      this.#trouble = null;
      this.#droppedLines = 0;
    }
  }

  #beginTrouble(reason: string): void {
    if (this.#trouble !== null) return;
    this.#trouble = reason;
    this.#say(
      `the log cannot be written (${reason}); log lines are dropped until it works again, and rideport keeps running`,
    );
  }

  #drop(bytes: Buffer): void {
    let lines = 0;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) lines++;
    this.#droppedLines += Math.max(1, lines);
  }

  /** One line on stderr; if stderr fails too, there is nowhere left to say it. */
  #say(message: string): void {
    try {
      this.#stderr.write(`rideport: ${message}\n`);
    } catch {
      // bin/rideport.js also ignores stderr's asynchronous errors.
    }
  }
}

/** `io` with its stdout behind a LogDestination: for the commands that keep running (`serve`, `up`). */
export function withLogDestination(io: CliIo): CliIo & { stdout: LogDestination } {
  return { ...io, stdout: new LogDestination(io.stdout, io.stderr) };
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
