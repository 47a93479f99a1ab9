/**
 * Timing for bench/parse.ts. Every parser of a file is warmed up, then measured in alternating time
 * slices until each has at least MEASURE_MS of runs, so machine noise (other processes, thermal
 * throttling) falls on all of them alike. The median run time is reported, not the mean: a single
 * garbage collection landing in one run should not move the result.
 */
import type { ParseRun } from './parsers.js';

const WARM_UP_RUNS = 3;
const WARM_UP_MS = 300;
const MEASURE_MS = 1500;
const MIN_RUNS = 5;
const SLICE_MS = 100;

export interface Contender {
  run: ParseRun;
  /** milliseconds per measured run */
  times: number[];
  /** the first error the parser threw on this file; it is not run again after one */
  failure: string | null;
}

/** Keeps every result reachable so no run can be optimised away. */
export let lastResult: unknown;

/** Milliseconds of one run, or null when the parser threw (recorded as the contender's failure). */
function timeRun(contender: Contender, bytes: Buffer): number | null {
  const start = performance.now();
  try {
    lastResult = contender.run(bytes);
  } catch (error) {
    contender.failure = error instanceof Error ? error.message : String(error);
    return null;
  }
  return performance.now() - start;
}

/** Runs each live contender for one slice of at least `sliceMs` (and one run), rotating who goes first. */
function rounds(
  contenders: Contender[],
  bytes: Buffer,
  sliceMs: number,
  done: (spentMs: number, runs: number) => boolean,
  record: boolean,
): void {
  const spent = contenders.map(() => 0);
  const runs = contenders.map(() => 0);
  for (let round = 0; ; round++) {
    let anyRan = false;
    for (let k = 0; k < contenders.length; k++) {
      const index = (round + k) % contenders.length;
      const contender = contenders[index]!;
      if (contender.failure !== null || done(spent[index]!, runs[index]!)) continue;
      anyRan = true;
      const sliceStart = performance.now();
      do {
        const ms = timeRun(contender, bytes);
        if (ms === null) break;
        if (record) contender.times.push(ms);
        spent[index]! += ms;
        runs[index]!++;
      } while (performance.now() - sliceStart < sliceMs);
    }
    if (!anyRan) return;
  }
}

export function measure(contenders: Contender[], bytes: Buffer): void {
  rounds(contenders, bytes, 0, (ms, runs) => runs >= WARM_UP_RUNS && ms >= WARM_UP_MS, false);
  rounds(contenders, bytes, SLICE_MS, (ms, runs) => runs >= MIN_RUNS && ms >= MEASURE_MS, true);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
