/**
 * One collecting pass over a source (docs/contributors/architecture.md, "Sync engine": list → diff against the ledger → copy
 * each new complete file into the inbox with its SHA-256). Unchanged files (same size and mtime as
 * the ledger remembers) are not read at all, so a rescan of thousands of synced rides costs one
 * listing.
 */
import { Inbox, readSourceFile, sha256Of } from './inbox.js';
import type { FileRow, Ledger, RideRow, SourceRow } from './ledger.js';
import { listRideFiles, type ListedFile } from './listing.js';

export interface CollectOptions {
  /**
   * How long a file may stay incomplete with the same size and mtime before it is taken anyway: a
   * ride cut off for good (the unit crashed, the battery died) still holds a ride, and the server
   * reads truncated files.
   */
  incompleteGraceMs: number;
  nowMs: () => number;
  /** told of each new ride as soon as it is in the ledger, so uploads start while the pass goes on */
  onNewRide?: () => void;
  /**
   * told of a file whose bytes are a ride found before as another file (issue 35), the first time
   * the ledger sees those bytes there
   */
  onCopy?: (file: { sourceId: string; relativePath: string }, ride: RideRow) => void;
}

export interface CollectResult {
  /** false when none of the source's folders is there */
  present: boolean;
  /** files that are not whole yet: look again soon */
  waiting: number;
  /** files whose state the pass wrote into the ledger (new, changed or waiting ones) */
  written: number;
}

/**
 * Collects from `source`, whose files live under `folders` (a folder source: itself; a device: its
 * activity folders). Relative paths are kept relative to `source.path`, so they stay unique across
 * a device's folders.
 */
export async function collectSource(
  source: SourceRow,
  folders: readonly string[],
  ledger: Ledger,
  inbox: Inbox,
  options: CollectOptions,
): Promise<CollectResult> {
  const listed: ListedFile[] = [];
  let present = false;
  for (const folder of folders) {
    const files = await listRideFiles(folder);
    if (files === null) continue;
    present = true;
    for (const file of files) {
      listed.push({ ...file, relativePath: relativeTo(source.path, file.absolutePath) });
    }
  }
  const result: CollectResult = { present, waiting: 0, written: 0 };
  if (!present) return result;
  const known = ledger.files(source.id);
  for (const file of listed) {
    const seen = known.get(file.relativePath);
    const unchanged =
      seen !== undefined && seen.sizeBytes === file.sizeBytes && seen.mtimeMs === file.mtimeMs;
    if (unchanged && seen.state !== 'waiting') continue;
    const outcome = await collectFile(source, file, unchanged ? seen : undefined, ledger, inbox, {
      ...options,
      knownSha256: seen?.sha256 ?? null,
    });
    if (outcome !== 'gone') result.written += 1;
    if (outcome === 'new') options.onNewRide?.();
    else if (outcome === 'waiting') result.waiting += 1;
  }
  return result;
}

async function collectFile(
  source: SourceRow,
  file: ListedFile,
  unchangedRow: FileRow | undefined,
  ledger: Ledger,
  inbox: Inbox,
  /** `knownSha256`: the bytes the ledger knew at this path before, if any */
  options: CollectOptions & { knownSha256: string | null },
): Promise<'new' | 'known' | 'waiting' | 'skipped' | 'gone'> {
  const nowMs = options.nowMs();
  const row = {
    sourceId: source.id,
    relativePath: file.relativePath,
    sizeBytes: file.sizeBytes,
    mtimeMs: file.mtimeMs,
  };
  if (source.importAfterMs !== null && file.mtimeMs < source.importAfterMs) {
    ledger.saveFile({ ...row, state: 'skipped', sha256: null, reason: null, unchangedSinceMs: nowMs });
    return 'skipped';
  }
  const reading = await readSourceFile(file.absolutePath, file);
  if (reading.kind === 'gone') return 'gone';
  const unchangedSinceMs = unchangedRow?.unchangedSinceMs ?? nowMs;
  if (reading.kind === 'changing') {
    ledger.saveFile({
      ...row,
      state: 'waiting',
      sha256: null,
      reason: 'being written',
      unchangedSinceMs: nowMs,
    });
    return 'waiting';
  }
  if (reading.kind === 'incomplete' && nowMs - unchangedSinceMs < options.incompleteGraceMs) {
    ledger.saveFile({ ...row, state: 'waiting', sha256: null, reason: reading.reason, unchangedSinceMs });
    return 'waiting';
  }
  // Whole, or incomplete for longer than the grace period: into the inbox, then the ledger, in that
  // order, so the ledger never names a copy that is not there.
  const sha256 = sha256Of(reading.bytes);
  const filename = file.relativePath.slice(file.relativePath.lastIndexOf('/') + 1);
  const inboxName = Inbox.nameFor(sha256, filename);
  // Content the ledger knows already (another name of a ride) needs no copy: its ride has one while it
  // waits to be uploaded, and once synced its copy was removed; copying again would leave it behind.
  const known = ledger.ride(sha256);
  if (known === undefined) await inbox.store(inboxName, reading.bytes);
  const isNew = ledger.collect(row, { sha256, inboxName, filename }, nowMs);
  // Another file with these bytes (not this one again, touched or rewritten as it was): said once.
  const another =
    known !== undefined && (known.sourceId !== source.id || known.relativePath !== file.relativePath);
  if (!isNew && another && options.knownSha256 !== sha256) options.onCopy?.(row, known);
  return isNew ? 'new' : 'known';
}

function relativeTo(root: string, absolutePath: string): string {
  const normalizedRoot = root.replaceAll('\\', '/').replace(/\/+$/, '');
  const normalized = absolutePath.replaceAll('\\', '/');
  return normalized.startsWith(`${normalizedRoot}/`)
    ? normalized.slice(normalizedRoot.length + 1)
    : normalized;
}
