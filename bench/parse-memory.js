// One parse in a fresh process, for the memory table of bench/parse.ts:
//   node --expose-gc bench/parse-memory.js rss <parser id> <format> <file>
//   node --expose-gc --max-semi-space-size=1 bench/parse-memory.js heap|warm-heap <parser id> <format> <file>
// prints one JSON line. Only this parser is loaded, the file is read and the heap collected before the
// parse; the result stays referenced until everything is measured.
//
// - rss → { peakGrowthBytes, retainedBytes, source }: the peak RSS during the parse minus the RSS just
//   before it, with the engine's default settings: what the process really takes, including the code the
//   JIT compiles during a first parse and garbage the engine has not collected yet (V8 lets its young
//   generation grow to 16 MB per semi-space before it collects, more eagerly when much survives). On
//   Linux the peak is /proc/self/status VmHWM, reset to the current RSS (clear_refs 5) just before the
//   parse. Not getrusage's maxRSS alone: Linux keeps ru_maxrss across fork and execve, so a child of the
//   (large) benchmark process starts with its parent's peak and every parse looked like ~30 MB.
//   Elsewhere maxRSS is the fallback ("source").
// - heap → { peakHeapBytes, retainedBytes, collections }: the most heap and external memory (array
//   buffers) in use during the parse, over the state after each garbage collection and at the end of
//   the parse (after a young-generation collection), minus the same before it; run with a 1 MB young generation, so a collection comes at least
//   every megabyte allocated and short-lived garbage barely counts: what the parse itself holds at its
//   high-water mark (to within about a megabyte of garbage made since the last collection). A first
//   parse also counts the parser's own code as the engine compiles it (bytecode, type feedback), a fixed
//   cost that outweighs the data of a small file.
// - warm-heap: the same for a second parse of the file in the process, the first one's result dropped
//   and collected: what the parse holds for the file's data once the parser's code exists, as in a
//   server or sync engine that reads file after file.
// - retainedBytes: what the result keeps alive: heap plus external memory after a full collection with
//   the result referenced, minus the same once it is dropped (not minus the state before the parse: the
//   code the engine compiled or flushed meanwhile is not the result's).
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import v8 from 'node:v8';
import { load } from './peer-loaders.js';

const [mode, parserId, format, file] = process.argv.slice(2);
if (
  !['rss', 'heap', 'warm-heap'].includes(mode) ||
  parserId === undefined ||
  format === undefined ||
  file === undefined
) {
  throw new Error('usage: parse-memory.js <rss|heap|warm-heap> <parser id> <format> <file>');
}
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const run = await load(parserId, format);
const bytes = readFileSync(file);

function collect() {
  // Twice: the first pass can leave objects only a second one frees (weak references, finalizers).
  gc();
  gc();
  return process.memoryUsage();
}

/** VmHWM of /proc/self/status in bytes, or null where there is no such file. */
function highWaterMark() {
  try {
    const match = /^VmHWM:\s*(\d+)\s*kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false when that is not possible here. */
function resetHighWaterMark() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return highWaterMark() !== null;
  } catch {
    return false;
  }
}

/** Heap objects plus external memory (array buffers and the like), in bytes. */
function inUse(heapUsed, external) {
  return heapUsed + external;
}

// The warm measurement's first parse, its result dropped: the parser's code is compiled before `before`.
if (mode === 'warm-heap') run(bytes);
const before = collect();
let report;
let result;
if (mode === 'rss') {
  const hwmReset = resetHighWaterMark();
  result = run(bytes);
  const peakRssBytes = (hwmReset ? highWaterMark() : null) ?? process.resourceUsage().maxRSS * 1024;
  report = { peakGrowthBytes: peakRssBytes - before.rss, source: hwmReset ? 'VmHWM' : 'maxRSS' };
} else {
  const baseline = inUse(before.heapUsed, before.external);
  const profiler = new v8.GCProfiler();
  profiler.start();
  result = run(bytes);
  // The end of the parse is a sample too (the peak is often there: all the points, and the parser's
  // working memory not yet collected). A young-generation collection first frees only what has just
  // died young (the result is still referenced); memory the parse held long enough to reach the old
  // generation is still counted, dead or alive.
  gc({ type: 'minor' });
  const end = process.memoryUsage();
  const { statistics } = profiler.stop();
  let peak = inUse(end.heapUsed, end.external);
  for (const { afterGC } of statistics) {
    peak = Math.max(peak, inUse(afterGC.heapStatistics.usedHeapSize, afterGC.heapStatistics.externalMemory));
  }
  report = { peakHeapBytes: peak - baseline, collections: statistics.length };
}
const withResult = collect();
// Read after that collection, so the result is alive through it; then dropped for the next one.
const resultKept = result !== undefined;
result = undefined;
const withoutResult = collect();

process.stdout.write(
  `${JSON.stringify({
    ...report,
    retainedBytes:
      inUse(withResult.heapUsed, withResult.external) - inUse(withoutResult.heapUsed, withoutResult.external),
    resultKept,
  })}\n`,
);
