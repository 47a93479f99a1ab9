/**
 * `npm run test:durations`: the 15 slowest test files of the last run, with their seconds and their share
 * of the total, from what reporter.ts recorded (issue 35). With no argument it reads the record of the
 * last `npm test` (test-results/durations.json) and, when there is one, of the last `npm run test:slow`
 * (test-results/durations-slow.json); or name the records to read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DurationsRecord } from './reporter.js';

export const RESULTS_DIRECTORY = fileURLToPath(new URL('../../test-results/', import.meta.url));
const SHOWN = 15;

/** The summary of one record, as lines of text. */
export function summarise(record: DurationsRecord, shown = SHOWN): string[] {
  const total = record.totalFileSeconds;
  const share = (seconds: number): string => (total > 0 ? `${((100 * seconds) / total).toFixed(1)}%` : '-');
  const width = Math.max(...record.files.slice(0, shown).map((file) => file.file.length), 4);
  const lines = [
    `${record.files.length} files, ${record.files.reduce((sum, file) => sum + file.tests, 0)} tests; ` +
      `run began ${record.startedAt}, ${record.maxWorkers} worker(s); ` +
      `load average ${record.loadAverage.start.join(' ')} at the start, ${record.loadAverage.end.join(' ')} at the end`,
    `The ${Math.min(shown, record.files.length)} slowest files (seconds from start to end, imports included):`,
  ];
  for (const file of record.files.slice(0, shown)) {
    lines.push(
      `  ${file.seconds.toFixed(1).padStart(7)} s  ${share(file.seconds).padStart(6)}  ${file.file.padEnd(width)}  ` +
        `${file.project}, ${file.tests} tests` +
        (file.slowestTests[0] === undefined
          ? ''
          : `; slowest: ${file.slowestTests[0].seconds.toFixed(1)} s "${file.slowestTests[0].name}"`),
    );
  }
  lines.push(`  ${total.toFixed(1).padStart(7)} s  100.0%  total of every file's seconds`);
  lines.push(
    `  ${record.wallSeconds.toFixed(1).padStart(7)} s          wall time of the run (files run side by side)`,
  );
  return lines;
}

function main(paths: string[]): void {
  const defaults = ['durations.json', 'durations-slow.json'].map((name) => join(RESULTS_DIRECTORY, name));
  const chosen = paths.length > 0 ? paths : defaults.filter((path) => existsSync(path));
  if (chosen.length === 0) {
    console.error(`No record of a test run in ${RESULTS_DIRECTORY}: run npm test (or npx vitest run) first.`);
    process.exitCode = 1;
    return;
  }
  for (const path of chosen) {
    const record = JSON.parse(readFileSync(path, 'utf8')) as DurationsRecord;
    console.log(`${path}:`);
    for (const line of summarise(record)) console.log(line);
    console.log('');
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2));
}
