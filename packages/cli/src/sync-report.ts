/**
 * What `rideport sync` and `rideport up` print while the engine works (issue 6: "a progress bar for
 * bulk imports (and plain lines when not a TTY)"): on a terminal, a bar while a batch uploads; always,
 * one line per ride that ends synced or failed, and a line when the engine's state changes (needs
 * sign-in, offline, paused, a source waiting for its import choice). With `once` (`sync --once`) the
 * state lines are left to the command's final error line, which says the same without "trying again".
 */
import type { SyncEngine, SyncStatus } from '@rideport/sync';
import type { CliIo, CliWritable } from './io.js';
import { announce, type LogFormat } from './announce.js';

export interface SyncReport {
  /** prints what is new now (the engine's change events come a turn later) */
  flush(): void;
  /** rides synced and failed since the report began (issue 20: not everything the ledger ever saw) */
  runCounts(): { synced: number; failed: number };
  stop(): void;
}

/** Batches smaller than this get no bar: a bar that appears and vanishes at once is noise. */
const BAR_MINIMUM_RIDES = 3;
const BAR_WIDTH = 30;

/**
 * The bar on the terminal's last line, redrawn in place with a carriage return and written to stdout
 * (when that is the terminal), so that it keeps its place among the lines even behind `up`'s log
 * destination. It never saves and restores the cursor (issue 20: cli-progress did, so its end put the
 * cursor back where the bar began and the summary overwrote the lines printed meanwhile); a line
 * printed while it shows clears it, is written, and the bar is drawn again below it.
 */
class ProgressLine {
  readonly #output: CliWritable;
  readonly #columns: () => number;
  #text: string | null = null;

  /** `output`: where the lines go too, so that the bar and the lines arrive in order. */
  constructor(output: CliWritable, columns: () => number) {
    this.#output = output;
    this.#columns = columns;
  }

  get shown(): boolean {
    return this.#text !== null;
  }

  draw(done: number, total: number, counts: { synced: number; failed: number }): void {
    const filled = total === 0 ? 0 : Math.round((Math.min(done, total) / total) * BAR_WIDTH);
    const text = `syncing |${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}| ${done}/${total} rides · ${counts.synced} synced, ${counts.failed} failed`;
    // One column short of the width: writing into the last column wraps on some terminals.
    const columns = this.#columns() > 1 ? this.#columns() - 1 : text.length;
    this.#text = text.slice(0, columns);
    this.#output.write(`\r\x1b[K${this.#text}`);
  }

  /** Writes `write`'s output above the bar. */
  above(write: () => void): void {
    if (this.#text === null) {
      write();
      return;
    }
    this.#output.write('\r\x1b[K');
    write();
    this.#output.write(this.#text);
  }

  clear(): void {
    if (this.#text === null) return;
    this.#output.write('\r\x1b[K');
    this.#text = null;
  }
}

export function reportSync(
  engine: SyncEngine,
  io: CliIo,
  format: LogFormat,
  options: { once?: boolean } = {},
): SyncReport {
  /**
   * What was printed of the rides in the engine's recent history, by SHA-256: their state and when it
   * changed. Only rides still in that history are kept (issue 22: nothing per ride for as long as the
   * command runs); a ride that leaves it and comes back has changed, and its new outcome is news.
   */
  let printed = new Map<string, string>();
  const mark = (entry: SyncStatus['recent'][number]): string => `${entry.state} ${entry.updatedAt}`;
  let lastState = '';
  const announcedSources = new Set<string>();
  let waitingSaid = new Map<string, string>();
  let copiesSaid = new Set<string>();
  const { terminal } = io;
  const bar =
    terminal?.stdoutIsTerminal === true && format === 'text'
      ? new ProgressLine(io.stdout, () => terminal.output.columns)
      : null;
  const before = engine.status().counts;
  const runCounts = (status: SyncStatus): { synced: number; failed: number } => ({
    synced: Math.max(0, status.counts.synced - before.synced),
    // A ride retried from the dashboard meanwhile leaves `failed`: never below none.
    failed: Math.max(0, status.counts.failed - before.failed),
  });

  // Rides already answered before this run are history, not news.
  for (const entry of engine.status().recent) printed.set(entry.sha256, mark(entry));

  const line = (message: string, fields: Record<string, unknown>): void => {
    if (bar === null) announce(io, format, message, fields);
    else
      bar.above(() => {
        announce(io, format, message, fields);
      });
  };

  const render = (status: SyncStatus): void => {
    const stillRecent = new Map<string, string>();
    for (const entry of [...status.recent].reverse()) {
      if (entry.state !== 'synced' && entry.state !== 'failed') continue;
      const seen = printed.get(entry.sha256) === mark(entry);
      stillRecent.set(entry.sha256, mark(entry));
      if (seen) continue;
      const where = entry.relativePath;
      if (entry.state === 'synced') {
        const made = [
          ...entry.tripIds.map((id) => `trip ${id}`),
          ...entry.routeIds.map((id) => `route ${id}`),
        ].join(', ');
        line(`synced ${where}${made === '' ? '' : ` → ${made}`} (${entry.message ?? ''})`, {
          event: 'synced',
          file: where,
          trips: entry.tripIds,
          routes: entry.routeIds,
          message: entry.message,
        });
      } else {
        // Words for people on the line; the server's code only in the JSON line, for programs (issue 16).
        line(`failed ${where}: ${entry.message ?? 'no message'}`, {
          event: 'failed',
          file: where,
          message: entry.message,
          code: entry.errorCode,
        });
      }
    }
    printed = stillRecent;
    // Issue 20: a file that waits says why and for how long, once per reason; only the files waiting
    // now are remembered (issue 22: nothing per file for as long as the command runs).
    const stillWaiting = new Map<string, string>();
    for (const file of status.waitingFiles) {
      const key = `${file.sourceId}\n${file.relativePath}`;
      stillWaiting.set(key, file.reason);
      if (waitingSaid.get(key) === file.reason) continue;
      line(
        `not complete yet: ${file.relativePath} (${file.reason}); taken as it is at ${file.takenBy.slice(11, 19)} UTC unless it changes or is whole before`,
        { event: 'waiting', file: file.relativePath, reason: file.reason, takenBy: file.takenBy },
      );
    }
    waitingSaid = stillWaiting;
    // Issue 35: a byte-identical copy of a ride is not uploaded again, and said once, as the same ride
    // in another format is (its `synced` line names the trip it already was).
    const stillCopies = new Set<string>();
    for (const copy of [...status.copies].reverse()) {
      const key = `${copy.sourceId}\n${copy.relativePath}\n${copy.foundAt}`;
      stillCopies.add(key);
      if (copiesSaid.has(key)) continue;
      const { sameAs } = copy;
      const made = [
        ...sameAs.tripIds.map((id) => `trip ${id}`),
        ...sameAs.routeIds.map((id) => `route ${id}`),
      ];
      const what =
        sameAs.state === 'synced' && made.length > 0
          ? `synced already → ${made.join(', ')}`
          : sameAs.state === 'failed'
            ? 'which the server refused (the line about it says why)'
            : 'uploaded once, as that file';
      line(`not uploaded again: ${copy.relativePath} has the same bytes as ${sameAs.relativePath}, ${what}`, {
        event: 'copy',
        file: copy.relativePath,
        sameAs: sameAs.relativePath,
        trips: sameAs.tripIds,
        routes: sameAs.routeIds,
      });
    }
    copiesSaid = stillCopies;
    for (const source of status.sources) {
      if (!source.awaitingImportChoice || announcedSources.has(source.id)) continue;
      announcedSources.add(source.id);
      line(
        `new source ${source.label}: waiting to be told how far back to import (--import all|new|<N>d, or the dashboard)`,
        { event: 'awaiting-import-choice', source: source.id },
      );
    }
    const { state } = status;
    if (state.kind !== lastState && options.once !== true) {
      lastState = state.kind;
      if (state.kind === 'needs-sign-in') {
        line(`the server refused the credentials: ${state.message}; rides wait until you sign in again`, {
          event: 'needs-sign-in',
        });
      } else if (state.kind === 'offline') {
        line(`the server cannot be reached (${state.message}); trying again`, { event: 'offline' });
      } else if (state.kind === 'server-full') {
        line(`the server cannot store rides now (${state.message}); rides wait, trying again`, {
          event: 'server-full',
        });
      } else if (state.kind === 'disk-full') {
        line(`rides cannot be collected or recorded now (${state.message}); trying again`, {
          event: 'disk-full',
        });
      } else if (state.kind === 'paused') {
        line('uploads paused; files keep being collected', { event: 'paused' });
      }
    }
    if (bar === null) return;
    if (state.kind === 'syncing' && (state.total >= BAR_MINIMUM_RIDES || bar.shown)) {
      bar.draw(state.done, state.total, runCounts(status));
    } else if (state.kind !== 'syncing') {
      bar.clear();
    }
  };

  const flush = (): void => {
    render(engine.status());
  };
  const unsubscribe = engine.onChange(render);
  return {
    flush,
    runCounts: () => runCounts(engine.status()),
    stop() {
      unsubscribe();
      flush();
      bar?.clear();
    },
  };
}
