/**
 * Timing in child processes, for bench/parse.ts and bench/convert.ts: each contender runs in processes
 * of its own (bench/timing-child.js), in rounds, taking turns, so none is charged for another's
 * garbage and machine noise falls on all of them alike.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Rounds of timing processes per file: each contender runs once per round, in turn. */
export const TIMING_ROUNDS = 3;
/** Timed runs per contender and file, over all rounds (after each process's warm-up). */
export const MEASURE_MS = 1500;

type TimingReport = { times: number[] } | { failure: string };

/** The environment of a measuring child: without NODE_OPTIONS, or tsx's loader would sit in its heap. */
export function childEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  return env;
}

/** One timing process: the contender warmed up, then timed on the file for about `measureMs`. */
function timeInChild(
  loaders: string,
  id: string,
  format: string,
  file: string,
  measureMs: number,
): TimingReport {
  try {
    const output = execFileSync(
      process.execPath,
      [join(ROOT, 'bench', 'timing-child.js'), loaders, id, format, file, String(measureMs)],
      { cwd: ROOT, env: childEnvironment(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return JSON.parse(output) as TimingReport;
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Milliseconds per run of each contender on `file` (the median over the rounds of each process's
 * mean run time: garbage collection comes every few runs, and a median run would leave it out), or
 * the contender's failure message. `loaders` is the module, relative to bench/, that loads them.
 */
export function timeContenders(
  loaders: string,
  ids: readonly string[],
  format: string,
  file: string,
): Array<number | string> {
  const means = ids.map((): number[] => []);
  const failures = ids.map((): string | null => null);
  for (let round = 0; round < TIMING_ROUNDS; round++) {
    for (let k = 0; k < ids.length; k++) {
      // Who goes first rotates from round to round.
      const index = (round + k) % ids.length;
      if (failures[index] !== null) continue;
      const report = timeInChild(loaders, ids[index]!, format, file, MEASURE_MS / TIMING_ROUNDS);
      if ('failure' in report) failures[index] = report.failure;
      else means[index]!.push(report.times.reduce((sum, ms) => sum + ms, 0) / report.times.length);
    }
  }
  return ids.map((_, i) => failures[i] ?? median(means[i]!));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
