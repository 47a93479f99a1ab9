/**
 * What `rideport sync` and `rideport up` print while the engine works (issue 6: "a progress bar for
 * bulk imports (and plain lines when not a TTY)"): on a terminal, a bar while a batch uploads; always,
 * one line per ride that ends synced or failed, and a line when the engine's state changes (needs
 * sign-in, offline, paused, a source waiting for its import choice).
 */
import cliProgress from 'cli-progress';
import type { SyncEngine, SyncStatus } from '@rideport/sync';
import type { CliIo } from './io.js';
import { announce, type LogFormat } from './server-host.js';

export interface SyncReport {
  /** prints what is new now (the engine's change events come a turn later) */
  flush(): void;
  stop(): void;
}

/** Batches smaller than this get no bar: a bar that appears and vanishes at once is noise. */
const BAR_MINIMUM_RIDES = 3;

export function reportSync(engine: SyncEngine, io: CliIo, format: LogFormat): SyncReport {
  /**
   * What was printed of the rides in the engine's recent history, by SHA-256: their state and when it
   * changed. Only rides still in that history are kept (issue 22: nothing per ride for as long as the
   * command runs); a ride that leaves it and comes back has changed, and its new outcome is news.
   */
  let printed = new Map<string, string>();
  const mark = (entry: SyncStatus['recent'][number]): string => `${entry.state} ${entry.updatedAt}`;
  let lastState = '';
  const announcedSources = new Set<string>();
  let bar: cliProgress.SingleBar | null = null;
  const useBar = io.terminal !== undefined && format === 'text';

  // Rides already answered before this run are history, not news.
  for (const entry of engine.status().recent) printed.set(entry.sha256, mark(entry));

  const line = (message: string, fields: Record<string, unknown>): void => {
    if (bar !== null) {
      // cli-progress redraws on its own line; write above it by clearing the line first.
      io.terminal?.output.write('\r\x1b[K');
    }
    announce(io, format, message, fields);
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
    for (const source of status.sources) {
      if (!source.awaitingImportChoice || announcedSources.has(source.id)) continue;
      announcedSources.add(source.id);
      line(
        `new source ${source.label}: waiting to be told how far back to import (--import all|new|<N>d, or the dashboard)`,
        { event: 'awaiting-import-choice', source: source.id },
      );
    }
    const { state } = status;
    if (state.kind !== lastState) {
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
    if (!useBar) return;
    if (state.kind === 'syncing' && state.total >= BAR_MINIMUM_RIDES) {
      if (bar === null) {
        bar = new cliProgress.SingleBar(
          {
            format: 'syncing |{bar}| {value}/{total} rides · {synced} synced, {failed} failed',
            stream: io.terminal!.output,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(state.total, state.done, status.counts);
      } else {
        bar.setTotal(state.total);
        bar.update(state.done, status.counts);
      }
    } else if (state.kind !== 'syncing' && bar !== null) {
      bar.stop();
      bar = null;
    }
  };

  const flush = (): void => {
    render(engine.status());
  };
  const unsubscribe = engine.onChange(render);
  return {
    flush,
    stop() {
      unsubscribe();
      flush();
      bar?.stop();
      bar = null;
    },
  };
}
