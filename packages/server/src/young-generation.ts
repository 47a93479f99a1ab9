/**
 * A young generation that stays at its first size, for the processes that run for weeks (`rideport
 * up`, `sync`, `serve`, `worker` and the desktop app; issue 22, docs/operators/memory.md).
 *
 * V8 grows a heap's young generation (its "semi-spaces") with the volume of objects that survive
 * collections, up to 16 MB per semi-space on Node 20, and keeps the pages. A process that syncs a file
 * every few seconds takes most of a long run to reach that ceiling, so its resident memory climbs for
 * hours without anything being kept: the climb the soak runs measured (`bench:soak`). With a growth
 * factor of 1 the young generation never grows past its first size (1 MB per semi-space): young
 * collections come more often and each is shorter, for the same work.
 *
 * The flag is read whenever V8 considers growing a heap, so it can be set after Node has started (the
 * size flags, such as `--max-semi-space-size`, cannot: they are read when a heap is made, and Node
 * takes them only on its command line). Two measured facts shape the rest:
 * - 1 is below the least factor V8 declares for the flag (2, a "minimum value implication" in its
 *   flag definitions). V8 applies that bound when it checks its flags, which it does as a worker
 *   thread starts, not when the flag is set; so every worker module of the server calls
 *   `keepYoungGenerationSmallInThisWorker` as it loads, which sets the flag again for the whole
 *   process once that check has run. The host marks its choice in the environment, which each worker
 *   thread gets a copy of. young-generation.test.ts fails should a Node version apply the bound at
 *   once (then this keeps nothing small).
 * - An operator's own choice wins: a semi-space flag given to Node (`NODE_OPTIONS` or the command line)
 *   leaves everything as Node was told, which is also how a benchmark compares with Node's default
 *   (`NODE_OPTIONS=--max-semi-space-size=16`, Node 20’s own ceiling).
 */
import process from 'node:process';
import { setFlagsFromString } from 'node:v8';

const SMALL_YOUNG_GENERATION = '--semi-space-growth-factor=1';
/** set by the host in its environment, read by its worker threads */
const MARK = 'RIDEPORT_SMALL_YOUNG_GENERATION';

/** Keeps every heap of this process at its first young-generation size, unless Node was told otherwise. */
export function keepYoungGenerationSmall(): void {
  if (operatorChoseSemiSpace()) return;
  process.env[MARK] = '1';
  setFlagsFromString(SMALL_YOUNG_GENERATION);
}

/** For each worker thread's module, at load: the thread's start has just put the factor back to 2. */
export function keepYoungGenerationSmallInThisWorker(): void {
  if (process.env[MARK] === '1') setFlagsFromString(SMALL_YOUNG_GENERATION);
}

function operatorChoseSemiSpace(): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((flag) => /^--(max-|min-)?semi[-_]space[-_]/.test(flag));
}
