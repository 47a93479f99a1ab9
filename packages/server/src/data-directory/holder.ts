/**
 * Who holds a data directory (issue 17: a second server "says which process holds it and where it
 * listens"): the holder writes rideport.lock.json once it has the lock and again once it listens, and
 * a process refused the lock reads it to say so. The lock itself (db/file-lock.ts) decides who holds
 * the directory; this record only describes the holder, so it may be out of date for a moment: left
 * behind by a holder that was killed, or not yet written by one that has just taken over. A reader
 * therefore waits a little for a record whose process lives and listens.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '@rideport/files';
import { HOLDER_FILE } from '../data-layout.js';

export interface Holder {
  pid: number;
  /** what runs, in words: `rideport serve`, `the Rideport desktop app` */
  command: string;
  /** how a person stops it, in words: `press Ctrl-C where it runs, or run \`kill 4242\`` */
  howToStop: string;
  /** where it listens; null while it starts */
  url: string | null;
  /** when it took the directory, ISO 8601 */
  since: string;
}

/** How long a refused process waits for the holder's record to name a live, listening process. */
const HOLDER_WAIT_MS = 2_000;
const HOLDER_POLL_MS = 50;

export async function writeHolder(directory: string, holder: Holder): Promise<void> {
  await writeFileAtomically(join(directory, HOLDER_FILE), `${JSON.stringify(holder, null, 2)}\n`, {
    mode: 0o600,
  });
}

export async function removeHolder(directory: string): Promise<void> {
  await rm(join(directory, HOLDER_FILE), { force: true });
}

/**
 * The holder's record once it names a live process that listens; after HOLDER_WAIT_MS, a live one that
 * is still starting; null when no record names a live process.
 */
export async function readHolder(directory: string): Promise<Holder | null> {
  let starting: Holder | null = null;
  for (let waitedMs = 0; ; waitedMs += HOLDER_POLL_MS) {
    const holder = await readRecord(join(directory, HOLDER_FILE));
    if (holder !== null && isAlive(holder.pid)) {
      if (holder.url !== null) return holder;
      starting = holder;
    }
    if (waitedMs >= HOLDER_WAIT_MS) return starting;
    await new Promise((resolve) => setTimeout(resolve, HOLDER_POLL_MS));
  }
}

/**
 * Where the server on `directory` listens, or null when none runs there (`rideport admin sign-in-link`
 * makes its link for that server, issue 20). A server that is still starting counts as none.
 */
export async function runningServerUrl(directory: string): Promise<string | null> {
  return (await readHolder(directory))?.url ?? null;
}

/** The sentence a refused process says: which process holds the directory, where, and how to stop it. */
export function inUseMessage(directory: string, holder: Holder | null): string {
  const rule = 'only one Rideport server runs on a data directory at a time';
  if (holder === null) {
    return `${directory} is in use by another process, which has not said which: ${rule}. Stop the Rideport that runs on it (rideport serve, rideport up or the desktop app) first.`;
  }
  const where = holder.url === null ? 'starting, not listening yet' : `listening on ${holder.url}`;
  return `${directory} is in use by process ${holder.pid} (${holder.command}, ${where}, since ${holder.since}): ${rule}. To stop that one, ${holder.howToStop}.`;
}

async function readRecord(path: string): Promise<Holder | null> {
  let parsed: Partial<Holder>;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Holder>;
  } catch {
    // Missing (not written yet, or removed as its holder stopped) or not ours: no record.
    return null;
  }
  const { pid, command, howToStop, url, since } = parsed;
  if (
    typeof pid !== 'number' ||
    typeof command !== 'string' ||
    typeof howToStop !== 'string' ||
    (url !== null && typeof url !== 'string') ||
    typeof since !== 'string'
  ) {
    return null;
  }
  return { pid, command, howToStop, url, since };
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
