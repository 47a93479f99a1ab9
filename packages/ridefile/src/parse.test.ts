import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusAvailable, corpusFiles, readCorpus, readFixture } from '../../../test/support/corpus.js';
import { gpxGzipBomb } from '../../../test/support/gzip-bomb.js';
import { invariantViolations } from '../../../test/support/invariants.js';
import { RideFileError, RideFileErrorCode, RideFileWarningCode } from './errors.js';
import { gunzipBounded } from './gzip.js';
import type { RideFile, TrackPoint, Warning } from './model.js';
import { parseRideFile } from './parse.js';

/** The code of the RideFileError `run` throws (and fails the test if it throws anything else). */
function errorCode(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RideFileError);
    return (error as RideFileError).code;
  }
  throw new Error('expected a RideFileError, but the call succeeded');
}

const sampleRide = readFixture('gpx', 'sample-ride.gpx');

describe('parseRideFile: what it refuses', () => {
  it('refuses an empty file', () => {
    expect(errorCode(() => parseRideFile(new Uint8Array(0)))).toBe(RideFileErrorCode.EMPTY);
    expect(errorCode(() => parseRideFile(gzipSync(new Uint8Array(0))))).toBe(RideFileErrorCode.EMPTY);
  });

  it('refuses content that is no ride file, whatever its name says', () => {
    const text = new TextEncoder().encode('Lorem ipsum dolor sit amet\n');
    expect(errorCode(() => parseRideFile(text, { filename: 'ride.fit' }))).toBe(
      RideFileErrorCode.UNKNOWN_FORMAT,
    );
    const html = new TextEncoder().encode('<!DOCTYPE html><html><body>not a ride</body></html>');
    expect(errorCode(() => parseRideFile(html, { filename: 'ride.gpx' }))).toBe(
      RideFileErrorCode.UNKNOWN_FORMAT,
    );
    expect(errorCode(() => parseRideFile('<gpx/>' as unknown as Uint8Array))).toBe(
      RideFileErrorCode.UNKNOWN_FORMAT,
    );
  });

  it('refuses a well-formed file without points', () => {
    const gpx = new TextEncoder().encode(
      '<?xml version="1.0"?><gpx version="1.1" creator="x"><metadata/></gpx>',
    );
    expect(errorCode(() => parseRideFile(gpx))).toBe(RideFileErrorCode.NO_TRACKS);
  });

  it('calls a recognised but unreadable file malformed', () => {
    const fitHeaderOnly = new Uint8Array([14, 0x10, 0, 0, 100, 0, 0, 0, 0x2e, 0x46, 0x49, 0x54, 0, 0, 0x40]);
    expect(errorCode(() => parseRideFile(fitHeaderOnly))).toBe(RideFileErrorCode.MALFORMED);
    const cutGpx = new TextEncoder().encode(
      '<?xml version="1.0"?><gpx version="1.1"><trk><trkseg><trkpt lat="47',
    );
    expect(errorCode(() => parseRideFile(cutGpx))).toBe(RideFileErrorCode.MALFORMED);
  });

  it('refuses input larger than the limit, before and after gunzip', () => {
    expect(errorCode(() => parseRideFile(sampleRide, { maxBytes: 100 }))).toBe(RideFileErrorCode.TOO_LARGE);
    const bomb = gzipSync(new Uint8Array(8 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(16 * 1024);
    expect(errorCode(() => parseRideFile(bomb, { maxBytes: 1024 * 1024 }))).toBe(RideFileErrorCode.TOO_LARGE);
  });

  it('stops a gzip bomb at the default 256 MB without inflating it whole', () => {
    // A GPX whose 300 MB of blanks compress to about 300 KB; the default cap must stop it as it is read.
    expect(errorCode(() => parseRideFile(gpxGzipBomb()))).toBe(RideFileErrorCode.TOO_LARGE);
    // Zeros are no ride file: told from their first 64 KB, before the rest is inflated.
    const zeros = gzipSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });
    expect(errorCode(() => parseRideFile(zeros))).toBe(RideFileErrorCode.UNKNOWN_FORMAT);
  });

  it('refuses a track with more points than the limit', () => {
    expect(errorCode(() => parseRideFile(sampleRide, { maxPoints: 10 }))).toBe(RideFileErrorCode.TOO_LARGE);
  });
});

describe('parseRideFile: damaged input keeps what it can', () => {
  it('reads a gzipped XML file as it is gunzipped just as it reads it gunzipped first, cut anywhere (property)', () => {
    // The XML readers take a gzipped file a piece at a time (issue 36); gunzipBounded, which held the
    // whole content first, is the oracle: the same points, the same warnings (its own first), the
    // same refusal.
    const files = [
      sampleRide,
      readFixture('tcx', 'activity.tcx'),
      readFixture('tcx', 'latin1.tcx'),
      readFixture('kml', 'multitrack.kml'),
      readFixture('kml', 'bom-utf8.kml'),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...files), fc.double({ min: 0, max: 1, noNaN: true }), (file, fraction) => {
        const gzipped = gzipSync(file);
        const cut = gzipped.subarray(0, 10 + Math.floor((gzipped.length - 10) * fraction));
        type Outcome = string | { tracks: TrackPoint[][]; warnings: Warning[] };
        const outcome = (run: () => RideFile): Outcome => {
          try {
            const read = run();
            return { tracks: read.tracks.map((track) => track.points), warnings: read.warnings };
          } catch (error) {
            return (error as RideFileError).code;
          }
        };
        const gunzipWarnings: Warning[] = [];
        let content: Uint8Array;
        try {
          content = gunzipBounded(cut, 256 * 1024 * 1024, gunzipWarnings);
        } catch (error) {
          expect(outcome(() => parseRideFile(cut))).toBe((error as RideFileError).code);
          return;
        }
        const expected = outcome(() => parseRideFile(content));
        expect(outcome(() => parseRideFile(cut))).toEqual(
          typeof expected === 'string'
            ? content.length === 0
              ? RideFileErrorCode.EMPTY
              : expected
            : { ...expected, warnings: [...gunzipWarnings, ...expected.warnings] },
        );
      }),
      { numRuns: 150 },
    );
  });

  it('reads a gzip stream cut short, with a warning', () => {
    const whole = parseRideFile(sampleRide);
    const gzipped = gzipSync(sampleRide);
    const cut = parseRideFile(gzipped.subarray(0, Math.floor(gzipped.length * 0.8)));
    expect(cut.tracks[0]!.points.length).toBeGreaterThan(0);
    expect(cut.tracks[0]!.points.length).toBeLessThan(whole.tracks[0]!.points.length);
    // Every point before the cut is whole; the point the cut falls in keeps what was read of it.
    const cutPoints = cut.tracks[0]!.points;
    const wholePoints = whole.tracks[0]!.points;
    expect(cutPoints.slice(0, -1)).toEqual(wholePoints.slice(0, cutPoints.length - 1));
    expect(wholePoints[cutPoints.length - 1]).toMatchObject(cutPoints[cutPoints.length - 1]!);
    expect(cut.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.TRUNCATED);
  });

  it('gives a cut-off end to the last track only, and damage in the middle to every track', () => {
    const text = new TextDecoder().decode(readFixture('gpx', 'tracks-and-routes.gpx'));
    const whole = parseRideFile(new TextEncoder().encode(text));
    expect(whole.tracks.length).toBeGreaterThan(1);
    for (const track of whole.tracks) expect(track.warnings).toEqual([]);

    const lastPoint = text.lastIndexOf('<trkpt');
    const cut = parseRideFile(new TextEncoder().encode(text.slice(0, lastPoint + 20)));
    const truncatedTracks = cut.tracks.map((track) =>
      track.warnings.some((warning) => warning.code === RideFileWarningCode.TRUNCATED),
    );
    expect(truncatedTracks.at(-1)).toBe(true);
    expect(truncatedTracks.slice(0, -1).every((truncated) => !truncated)).toBe(true);

    const badCrc = parseRideFile(readFixture('fit', 'bad-crc.fit'));
    expect(badCrc.warnings.map((warning) => warning.code)).toContain(RideFileWarningCode.BAD_CRC);
    for (const track of badCrc.tracks) expect(track.warnings).toEqual(badCrc.warnings);
  });

  it('calls corrupt gzip malformed', () => {
    const gzipped = new Uint8Array(gzipSync(sampleRide));
    gzipped.fill(0xaa, 10, 40);
    expect(errorCode(() => parseRideFile(gzipped))).toBe(RideFileErrorCode.MALFORMED);
  });

  it('expands no entity of a billion-laughs file', () => {
    for (const name of ['billion-laughs.gpx', 'billion-laughs.tcx', 'billion-laughs.kml'] as const) {
      const format = name.slice(name.indexOf('.') + 1) as 'gpx' | 'tcx' | 'kml';
      const result = parseRideFile(readFixture(format, name));
      const names = result.tracks.map((track) => track.name ?? '').join('');
      // The reference stays as written; nothing was expanded.
      expect(names.length).toBeLessThan(200);
      expect(names).not.toContain('lollol');
    }
  });
});

describe('parseRideFile: format', () => {
  it('sniffs the format from the content, not the name', () => {
    expect(parseRideFile(sampleRide, { filename: 'ride.fit' }).format).toBe('gpx');
    expect(parseRideFile(gzipSync(sampleRide), { filename: 'ride.bin' }).format).toBe('gpx');
  });

  it('reads as the format it is told', () => {
    expect(parseRideFile(sampleRide, { format: 'gpx' }).tracks[0]!.points.length).toBe(30);
    expect(errorCode(() => parseRideFile(sampleRide, { format: 'fit' }))).toBe(RideFileErrorCode.MALFORMED);
  });
});

/**
 * Untrusted input (issue 2): random bytes, and real files mutated in every way a copy can go wrong,
 * never make anything but a RideFileError escape, and whatever is returned keeps the invariants.
 * The time a run may take is bounded by the test timeout, not asserted.
 */
describe('parseRideFile: property tests', () => {
  const expectOnlyRideFileErrors = (bytes: Uint8Array): void => {
    try {
      const result = parseRideFile(bytes, { maxBytes: 8 * 1024 * 1024 });
      for (const track of result.tracks) expect(invariantViolations(track)).toEqual([]);
    } catch (error) {
      if (!(error instanceof RideFileError)) throw error;
      expect(Object.values(RideFileErrorCode)).toContain(error.code);
    }
  };

  it('survives random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 4096 }), expectOnlyRideFileErrors), { numRuns: 300 });
  });

  it('survives random bytes behind a valid FIT header, and behind an XML prologue', () => {
    const fitHeader = (dataSize: number): Uint8Array =>
      new Uint8Array([12, 0x10, 0x00, 0x08, dataSize & 0xff, dataSize >> 8, 0, 0, 0x2e, 0x46, 0x49, 0x54]);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 2048 }), (body) => {
        const bytes = new Uint8Array(12 + body.length);
        bytes.set(fitHeader(body.length));
        bytes.set(body, 12);
        expectOnlyRideFileErrors(bytes);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 2048 }), (body) => {
        expectOnlyRideFileErrors(new TextEncoder().encode(`<?xml version="1.0"?><gpx><trk><trkseg>${body}`));
      }),
      { numRuns: 200 },
    );
  });

  const mutation = fc.oneof(
    fc.record({
      kind: fc.constant('flip' as const),
      at: fc.double({ min: 0, max: 1 }),
      value: fc.integer({ min: 0, max: 255 }),
    }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.double({ min: 0, max: 1 }) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.double({ min: 0, max: 1 }),
      bytes: fc.uint8Array({ maxLength: 16 }),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      at: fc.double({ min: 0, max: 1 }),
      length: fc.integer({ min: 1, max: 64 }),
    }),
    fc.record({
      kind: fc.constant('repeat' as const),
      at: fc.double({ min: 0, max: 1 }),
      length: fc.integer({ min: 1, max: 256 }),
    }),
  );

  function mutate(source: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
    let bytes = source;
    for (const change of mutations) {
      const at = Math.min(bytes.length, Math.floor(change.at * bytes.length));
      switch (change.kind) {
        case 'flip':
          bytes = bytes.slice();
          if (at < bytes.length) bytes[at] = change.value;
          break;
        case 'cut':
          bytes = bytes.subarray(0, at);
          break;
        case 'insert':
          bytes = concat(bytes.subarray(0, at), change.bytes, bytes.subarray(at));
          break;
        case 'delete':
          bytes = concat(bytes.subarray(0, at), bytes.subarray(at + change.length));
          break;
        case 'repeat':
          bytes = concat(bytes.subarray(0, at + change.length), bytes.subarray(at));
          break;
      }
    }
    return bytes;
  }

  const samples = corpusAvailable
    ? corpusFiles()
        .filter((file) => readCorpus(file.name).length < 400_000)
        .map((file) => file.name)
    : [];
  const fixtures = [
    readFixture('gpx', 'sample-ride.gpx'),
    readFixture('tcx', 'activity.tcx'),
    readFixture('kml', 'tracks.kml'),
  ];

  it('survives mutated real files (corpus when present, else our fixtures)', () => {
    const source =
      samples.length > 0
        ? fc.constantFrom(...samples).map((name) => readCorpus(name))
        : fc.constantFrom(...fixtures);
    fc.assert(
      fc.property(
        source,
        fc.array(mutation, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (bytes, changes, gzip) => {
          const mutated = mutate(bytes, changes);
          expectOnlyRideFileErrors(gzip ? gzipSync(mutated) : mutated);
        },
      ),
      { numRuns: 400 },
    );
  });
});

type Mutation =
  | { kind: 'flip'; at: number; value: number }
  | { kind: 'cut'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'repeat'; at: number; length: number };

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
