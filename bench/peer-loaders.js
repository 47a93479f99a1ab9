// The parse calls bench/parse.ts measures, one per parser id, each used the way its README shows. Loaded
// by the measuring child processes (timing-child.js, parse-memory.js), which run one parser each.
//
// Plain JavaScript on purpose: run through tsx, the loader's own start-up heap sits in the measured
// process (and left committed pages that a parse then reused, which hid up to a third of its peak).
// bench/parsers.ts lists the same ids with their labels and formats for the report: keep the two alike.
import { TextDecoder } from 'node:util';

/** @typedef {(bytes: Buffer) => unknown} ParseRun */

/** @type {Record<string, (format: string) => Promise<ParseRun>>} */
export const LOADERS = {
  async ours() {
    // The package's default export condition: the built dist, as users get it (not the TS sources).
    const { parseRideFile } = await import('@rideport/ridefile');
    return (bytes) => parseRideFile(bytes);
  },
  async 'ours-columns'() {
    // The columnar reader of the same package (issue 21): typed arrays per channel, no point objects.
    const { parseRideFileColumns } = await import('@rideport/ridefile');
    return (bytes) => parseRideFileColumns(bytes);
  },
  async 'fit-file-parser'() {
    const { default: FitParser } = await import('fit-file-parser');
    return (bytes) => {
      // Its README: `new FitParser({ force: true, ... }).parse(content, (error, data) => …)`; the
      // callback runs before parse returns, so the run stays synchronous like the others.
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
      // Default read options, as in the SDK's README. It reports failures in `errors` instead of
      // throwing; a file it could not read counts as failed, like a throw.
      const { messages, errors } = new Decoder(Stream.fromBuffer(bytes)).read();
      if (errors.length > 0) throw errors[0];
      return messages;
    };
  },
  async togeojson(format) {
    const { DOMParser } = await import('@xmldom/xmldom');
    const toGeoJson = await import('@tmcw/togeojson');
    const convert = toGeoJson[format];
    // Decoding the bytes is part of the peer's time: ours starts from the same bytes.
    return (bytes) => convert(new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'text/xml'));
  },
  // Not a parser: the least any FIT parser returning our points spends. The file is parsed once; each
  // run then only makes the same point objects again (same keys in the same order, same values) from
  // typed columns, one object literal per point, by a loop generated per key set as our reader does, and
  // computes the file's CRC, which the issue asks every reader to check (our CRC, the fastest we have):
  // what the allocation and collection of the output and the CRC cost on this machine, with no decoding.
  async 'points-and-crc'() {
    const { parseRideFile, TRACK_POINT_KEYS } = await import('@rideport/ridefile');
    // Not part of the package's interface: the reader's own CRC, by path.
    const { fitCrc } = await import('../packages/ridefile/dist/fit/crc.js');
    let source;
    let tracks = [];
    return (bytes) => {
      if (source !== bytes) {
        source = bytes;
        tracks = parseRideFile(bytes).tracks.map((track) => pointColumns(track.points, TRACK_POINT_KEYS));
      }
      return { crc: fitCrc(bytes, 0, bytes.length), points: tracks.map(makePoints) };
    };
  },
  // Not a parser either: the floor of our own columnar FIT reader's design (issue 21). Our FIT reader
  // up to its drafts: the file's CRC checked and every record decoded into the columns, with times
  // converted and wheel rows marked, but no summary, no laps from points and no finishing of the rows.
  // parseRideFileColumns on this decoder can be no faster than this.
  async 'decoding-and-crc'() {
    // Not part of the package's interface: the reader itself, by path.
    const { readFit } = await import('../packages/ridefile/dist/fit/read.js');
    return (bytes) => readFit(bytes, { maxPoints: 2_000_000 });
  },
};

/**
 * The points as runs of one key set, with a column of values per key: Int32 where every value is a
 * whole number (read back as small integers, stored in the points without a box, as our reader does),
 * Float64 otherwise.
 */
function pointColumns(points, keys) {
  const integral = keys.map((key) =>
    points.every(
      (point) => point[key] === undefined || ((point[key] | 0) === point[key] && !Object.is(point[key], -0)),
    ),
  );
  const columns = keys.map((_, k) =>
    integral[k] ? new Int32Array(points.length) : new Float64Array(points.length),
  );
  const runs = [];
  points.forEach((point, i) => {
    const present = keys.filter((key) => point[key] !== undefined);
    const mask = present.join('');
    if (runs.at(-1)?.mask !== mask)
      runs.push({ mask, from: i, to: i, build: pointMaker(present, keys, integral) });
    runs.at(-1).to = i + 1;
    present.forEach((key) => {
      columns[keys.indexOf(key)][i] = point[key];
    });
  });
  return { length: points.length, columns, runs };
}

const pointMakers = new Map();

/**
 * The loop making the points of rows [from, to) with exactly `present` keys, one literal each; one per
 * set of column types too, so that each loop sees one type.
 */
function pointMaker(present, keys, integral) {
  const cacheKey = `${present.join('')} ${present.map((key) => (integral[keys.indexOf(key)] ? 'i' : 'f')).join('')}`;
  if (!pointMakers.has(cacheKey)) {
    const fields = present.map((key) => `${key}: columns[${keys.indexOf(key)}][i]`).join(', ');
    // Generated from the fixed key names only, never from the file.
    const loop = new Function(
      'columns',
      'points',
      'from',
      'to',
      `for (let i = from; i < to; i++) points[i] = { ${fields} };`,
    );
    pointMakers.set(cacheKey, loop);
  }
  return pointMakers.get(cacheKey);
}

function makePoints({ length, columns, runs }) {
  const points = new Array(length);
  for (const run of runs) run.build(columns, points, run.from, run.to);
  return points;
}

/** The parse run of `parserId` for `format`; throws on an unknown id (timing-child.js's `load`). */
export async function load(parserId, format) {
  const load = LOADERS[parserId];
  if (load === undefined)
    throw new Error(`unknown parser ${parserId}; known: ${Object.keys(LOADERS).join(', ')}`);
  return load(format);
}
