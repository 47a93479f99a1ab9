// One contender timed on one file in a process of its own, for the speed tables of bench/parse.ts and
// bench/convert.ts:
//   node bench/timing-child.js <loaders module> <contender id> <format> <file> <measure ms>
// where the loaders module (peer-loaders.js, convert-loaders.js) exports `load(id, format)`, which
// resolves to a function of the file's bytes. Prints one JSON line: { "times": [ms per run, …] } or
// { "failure": "<the contender's error>" }.
//
// A process per contender, so that none is charged for another's garbage (a major collection of the
// old generation a peer filled lands in whoever runs next) and none runs on a heap shaped by another.
// Warm-up first (the JIT compilers settle, see below), then every run is timed. Each result stays referenced until
// the next run, as a caller would hold it: its collection is part of what a parse costs.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { URL } from 'node:url';

// Warm-up: at least WARM_UP_MS and WARM_UP_MIN_RUNS, and then WARM_UP_RUNS runs or WARM_UP_MAX_MS,
// whichever comes first. V8 tiers up by counting calls and loop iterations, not by time: a function
// whose one long loop was compiled on the fly (on-stack replacement) can deoptimize on leaving that loop
// for its first dozen or two calls, until it is compiled as a whole. A fast parser gets there within
// the time; a slow one would need minutes of runs and is given WARM_UP_MAX_MS.
const WARM_UP_MIN_RUNS = 3;
const WARM_UP_RUNS = 30;
const WARM_UP_MS = 500;
const WARM_UP_MAX_MS = 3000;
const MIN_RUNS = 3;

const [loadersModule, contenderId, format, file, measureArgument] = process.argv.slice(2);
const measureMs = Number(measureArgument);
if (
  loadersModule === undefined ||
  contenderId === undefined ||
  format === undefined ||
  file === undefined ||
  !(measureMs > 0)
) {
  throw new Error('usage: timing-child.js <loaders module> <contender id> <format> <file> <measure ms>');
}

const { load } = await import(new URL(loadersModule, import.meta.url).href);
const run = await load(contenderId, format);
const bytes = readFileSync(file);

/** Keeps the last result reachable, so no run can be optimised away. */
let lastResult;

function report(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

try {
  const warmUpStart = performance.now();
  for (let runs = 0; ; runs++) {
    const spent = performance.now() - warmUpStart;
    if (runs >= WARM_UP_MIN_RUNS && spent >= WARM_UP_MS && (runs >= WARM_UP_RUNS || spent >= WARM_UP_MAX_MS))
      break;
    lastResult = run(bytes);
  }
  const times = [];
  let spent = 0;
  while (times.length < MIN_RUNS || spent < measureMs) {
    const start = performance.now();
    lastResult = run(bytes);
    const ms = performance.now() - start;
    times.push(ms);
    spent += ms;
  }
  report({ times, resultKept: lastResult !== undefined });
} catch (error) {
  report({ failure: error instanceof Error ? error.message : String(error) });
}
