// One parse in a fresh process, for the memory table of bench/parse.ts:
//   node --expose-gc bench/parse-memory.js <parser id> <format> <file>
// prints one JSON line: { "peakGrowthBytes", "retainedBytes" }.
//
// Plain JavaScript on purpose: run through tsx, the loader's own start-up heap leaves committed pages
// that the parse then reuses, which hid up to a third of its peak. So this file repeats the calls of
// bench/parsers.ts (keep the two alike) instead of importing it.
//
// - peakGrowthBytes: the peak RSS during the parse minus the RSS just before it, with only this parser
//   loaded, the file read and the heap collected. On Linux the peak is /proc/self/status VmHWM, reset
//   to the current RSS (clear_refs 5) just before the parse. Not getrusage's maxRSS alone: Linux keeps
//   ru_maxrss across fork and execve, so a child of the (large) benchmark process starts with its
//   parent's peak and every parse looked like ~30 MB. Elsewhere maxRSS is the fallback ("source").
// - retainedBytes: what the result keeps alive: heap plus external memory after a full collection,
//   with the result still referenced, minus the same before the parse.
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { TextDecoder } from 'node:util';

const LOADERS = {
  async ours() {
    const { parseRideFile } = await import('@rideport/ridefile');
    return (bytes) => parseRideFile(bytes);
  },
  async 'fit-file-parser'() {
    const { default: FitParser } = await import('fit-file-parser');
    return (bytes) => {
      let data;
      let failure;
      new FitParser({ force: true }).parse(bytes, (error, parsed) => {
        failure = error;
        data = parsed;
      });
      if (failure !== undefined) throw new Error(failure);
      return data;
    };
  },
  async fitsdk() {
    const { Decoder, Stream } = await import('@garmin/fitsdk');
    return (bytes) => {
      const { messages, errors } = new Decoder(Stream.fromBuffer(bytes)).read();
      if (errors.length > 0) throw errors[0];
      return messages;
    };
  },
  async togeojson(format) {
    const { DOMParser } = await import('@xmldom/xmldom');
    const toGeoJson = await import('@tmcw/togeojson');
    const convert = toGeoJson[format];
    return (bytes) => convert(new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'text/xml'));
  },
};

const [parserId, format, file] = process.argv.slice(2);
const load = LOADERS[parserId];
if (load === undefined || format === undefined || file === undefined) {
  throw new Error(`usage: parse-memory.js <${Object.keys(LOADERS).join('|')}> <format> <file>`);
}
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const run = await load(format);
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

const before = collect();
const hwmReset = resetHighWaterMark();
const result = run(bytes);
const peakRssBytes = (hwmReset ? highWaterMark() : null) ?? process.resourceUsage().maxRSS * 1024;
const after = collect();

process.stdout.write(
  `${JSON.stringify({
    peakGrowthBytes: peakRssBytes - before.rss,
    source: hwmReset ? 'VmHWM' : 'maxRSS',
    retainedBytes: after.heapUsed + after.external - (before.heapUsed + before.external),
    // Reading the result after the second measurement keeps it alive through it.
    resultKept: result !== undefined,
  })}\n`,
);
