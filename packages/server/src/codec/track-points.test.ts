import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { lastPointTime, parseRideFileColumns, TRACK_POINT_KEYS, type TrackPoint } from '@rideport/ridefile';
import { describe, expect, it } from 'vitest';
import { corpusFiles, readFixture } from '../../../../test/support/corpus.js';
import { tracksOf } from '../test-support/assets.js';
import { columnTimeRange, timeRange } from '../store/track-columns.js';
import {
  lastColumnTime,
  PackedPointsReader,
  packedPointsJson,
  packedPointsJsonSlices,
  packTrackColumns,
  packTrackPoints,
  unpackTrackPoints,
} from './track-points.js';

/** The stored JSON by its definition: each point's finite values, keys in the specification's order. */
function referenceJson(points: readonly TrackPoint[]): string {
  return JSON.stringify(
    points.map((point) =>
      Object.fromEntries(
        TRACK_POINT_KEYS.filter((key) => Number.isFinite(point[key])).map((key) => [key, point[key]]),
      ),
    ),
  );
}

const storedJson = (points: readonly TrackPoint[]): string => packedPointsJson(packTrackPoints(points));

describe('packed track points and their JSON', () => {
  it("writes each point's keys in the specification's order, whatever order the object has", () => {
    const point: TrackPoint = {
      T: 21,
      d: 12.5,
      s: 3.5,
      p: 200,
      h: 140,
      c: 90,
      t: 1717232400,
      e: 510,
      y: 46.2,
      x: 7.1,
    };
    expect(storedJson([point])).toBe(
      '[{"x":7.1,"y":46.2,"e":510,"t":1717232400,"c":90,"h":140,"p":200,"s":3.5,"d":12.5,"T":21}]',
    );
  });

  it('leaves out keys without a finite value; an empty track is an empty array', () => {
    expect(storedJson([{ x: 7, y: Number.NaN, e: Number.POSITIVE_INFINITY }, {}])).toBe('[{"x":7},{}]');
    expect(storedJson([])).toBe('[]');
  });

  /** Every point of any list made of `value`s keeps them exactly (property). */
  function keepsExactly(value: fc.Arbitrary<number>, key: fc.Arbitrary<string>): void {
    // Entries in any order: a point's keys are inserted as they come (later repeats win).
    const point = fc
      .array(fc.tuple(key, value), { maxLength: 12 })
      .map((entries) => Object.fromEntries(entries) as TrackPoint);
    fc.assert(
      fc.property(fc.array(point, { maxLength: 50 }), (points) => {
        expect(storedJson(points)).toBe(referenceJson(points));
      }),
    );
  }

  it('keeps every value exactly, for any points whatever the order of their keys (property)', () => {
    const value = fc.oneof(
      fc.double(),
      fc.integer({ min: -1e9, max: 1e9 }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324),
    );
    keepsExactly(value, fc.constantFrom(...TRACK_POINT_KEYS, 'extra'));
  });

  it('keeps values in fixed steps exactly, stored as integers (property)', () => {
    // What devices record: whole numbers, decimal steps, semicircles; near the edges of each form.
    const stepped = fc.oneof(
      fc
        .tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.integer({ min: 0, max: 9 }))
        .map(([n, decimals]) => n / 10 ** decimals),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((n) => n * (180 / 2 ** 31)),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 0.1 + 0.2, -0, 0),
    );
    keepsExactly(stepped, fc.constantFrom(...TRACK_POINT_KEYS));
  });

  it('packs a recorded ride into a fraction of its float64 columns', () => {
    const [track] = tracksOf(readFixture('fit', 'multisport-wheel.fit'), 'multisport-wheel.fit');
    const points = track!.points;
    const float64Bytes = TRACK_POINT_KEYS.reduce(
      (sum, key) => sum + points.filter((point) => Number.isFinite(point[key])).length * 8,
      0,
    );
    expect(points.length).toBeGreaterThan(100);
    expect(packTrackPoints(points).byteLength).toBeLessThan(float64Bytes / 2);
  });

  it('reads the packed form of version 1, which older servers stored', () => {
    const points: TrackPoint[] = [
      { x: 7.1, y: 46.2, t: 1 },
      { t: 2, h: 130 },
      { x: 0.1 + 0.2, t: 3 },
    ];
    expect(unpackTrackPoints(packVersion1(points))).toEqual(points);
  });

  it('keeps every point of every track of the fixtures and the corpus', () => {
    const files = [
      { name: 'sample-ride.gpx', bytes: readFixture('gpx', 'sample-ride.gpx') },
      { name: 'tracks-and-routes.gpx', bytes: readFixture('gpx', 'tracks-and-routes.gpx') },
      { name: 'multisport-wheel.fit', bytes: readFixture('fit', 'multisport-wheel.fit') },
      ...corpusFiles().map((file) => ({ name: file.name, bytes: new Uint8Array(readFileSync(file.path)) })),
    ];
    let tracks = 0;
    for (const file of files) {
      let read;
      try {
        read = tracksOf(file.bytes, file.name);
      } catch {
        continue;
      }
      // The upload queue packs the columns of the same file (issue 21): the same bytes, times and range.
      const columnar = parseRideFileColumns(file.bytes, { filename: file.name }).tracks;
      expect(columnar).toHaveLength(read.length);
      read.forEach((track, index) => {
        tracks++;
        expect(storedJson(track.points), file.name).toBe(referenceJson(track.points));
        const { columns } = columnar[index]!;
        expect(packTrackColumns(columns), file.name).toEqual(packTrackPoints(track.points));
        expect(lastColumnTime(columns), file.name).toBe(lastPointTime(track.points));
        expect(columnTimeRange(columns), file.name).toEqual(timeRange(track.points));
      });
    }
    expect(tracks).toBeGreaterThan(3);
  });

  it('packs columns with values that are not finite as points without them', () => {
    const columns = {
      length: 3,
      x: Float64Array.of(7.1, Number.POSITIVE_INFINITY, 7.3),
      t: Float64Array.of(1, Number.NaN, 3),
      h: Float32Array.of(Number.NaN, 130, Number.NEGATIVE_INFINITY),
    };
    const points: TrackPoint[] = [{ x: 7.1, t: 1 }, { h: 130 }, { x: 7.3, t: 3 }];
    expect(packTrackColumns(columns)).toEqual(packTrackPoints(points));
    expect(lastColumnTime(columns)).toBe(3);
    expect(columnTimeRange({ length: 2, t: Float64Array.of(Number.NaN, Number.NaN) })).toBeNull();
    expect(columnTimeRange({ length: 2, t: Float64Array.of(5, 2) })).toEqual({ first: 5, last: 5 });
    expect(lastColumnTime({ length: 0 })).toBeNull();
  });

  it('reads packed points from a view at any offset, as SQLite hands them back', () => {
    const points: TrackPoint[] = [
      { x: 7.1, y: 46.2, t: 1 },
      { t: 2, h: 130 },
      { x: 7.2, y: 46.3, t: 3 },
    ];
    const packed = packTrackPoints(points);
    const shifted = new Uint8Array(packed.byteLength + 3);
    shifted.set(packed, 3);
    expect(unpackTrackPoints(shifted.subarray(3))).toEqual(points);
  });

  it('refuses damaged bytes instead of inventing points', () => {
    const packed = packTrackPoints([{ x: 7.1, y: 46.2, t: 1 }, { t: 2 }]);
    expect(() => unpackTrackPoints(packed.subarray(0, packed.byteLength - 8))).toThrow(/damaged/);
    expect(() => unpackTrackPoints(new Uint8Array([4, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/damaged/);
    expect(() => unpackTrackPoints(new Uint8Array(3))).toThrow(/damaged/);
    // A bitmap that counts another number of points than its section holds: refused before any slice.
    const sparse = packTrackPoints([{ x: 1, t: 1 }, { t: 2 }, { x: 3, t: 3 }]);
    const lying = sparse.slice();
    const xBitmap = 8 + 16;
    lying[xBitmap] = 0b111;
    expect(() => unpackTrackPoints(lying)).toThrow(/damaged/);
    expect(() => packedPointsJsonSlices(lying)).toThrow(/damaged/);
  });

  it('reads the packed form of version 2, which servers before issue 36 stored', () => {
    // Written by the version 2 packer (fixed widths only) for these points.
    const points: TrackPoint[] = [
      { x: 8.540001, y: 47.370001, e: 410.2, t: 1717232400, h: 120, p: 0 },
      { x: 8.540013, y: 47.369995, e: 410.4, t: 1717232401, p: 250 },
      { t: 1717232405, d: 12.5, s: 3.5, T: 21 },
      { x: 8.540101, y: 47.369901, e: 409.8, t: 1717232406, c: 90, h: 121, p: 1336.5 },
    ];
    const version2 = Buffer.from(
      'AgD/AwQAAAADAAAAAQYAAAAAACDsSWBBCwAAAAAAAAAADGQAAAAAAAMAAAABBgAAAAAAaHWWhkELAAAAAAAAAGReAAAAAAAAAwAAAAEB' +
        'AAAAAAAAAAKwQAsAAAAAAAAABAYAAAAAAAAEAAAAAQAAAAAAAMS4ltlBAAEFBgAAAAABAAAAAQAAAAAAAAAAgFZACAAAAAAAAAAAAAAA' +
        'AAAAAAIAAAABAAAAAAAAAAAAXkAJAAAAAAAAAAABAAAAAAAAAwAAAAIBAAAAAAAAAAAAAAsAAAAAAAAAAADECTU0AAABAAAAAQEAAAAA' +
        'AAAAgEFABAAAAAAAAAAAAAAAAAAAAAEAAAABAQAAAAAAAABAX0AEAAAAAAAAAAAAAAAAAAAAAQAAAAEAAAAAAAAAAAA1QAQAAAAAAAAA' +
        'AAAAAAAAAAA=',
      'base64',
    );
    expect(version2[0]).toBe(2);
    expect(unpackTrackPoints(version2)).toEqual(points);
    expect(packedPointsJson(version2)).toBe(storedJson(points));
  });

  it('packs a ride’s steps as varint deltas: a third of the fixed widths, the same points (issue 36)', () => {
    const ride: TrackPoint[] = Array.from({ length: 20_000 }, (_, i) => ({
      x: Math.round((8.54 + i * 3e-6 + Math.sin(i / 50) * 2e-5) * 1e6) / 1e6,
      y: Math.round((47.37 + Math.cos(i / 70) * 2e-4) * 1e6) / 1e6,
      e: Math.round((400 + Math.sin(i / 300) * 40) * 5) / 5,
      t: 1_717_232_400 + i,
      h: 120 + (i % 37),
    }));
    const packed = packTrackPoints(ride);
    expect(packed[0]).toBe(3);
    expect(unpackTrackPoints(packed)).toEqual(ride);
    // Fixed widths would take 4 + 4 + 2 + 4 + 1 bytes a point.
    expect(packed.byteLength).toBeLessThan((20_000 * 15) / 2.5);
  });

  it('refuses varints that run past their section or end half way', () => {
    // Steps 1,000 apart: a varint of two bytes each (the first, 0, of one), where fixed widths take four.
    const packed = Buffer.from(packTrackPoints(Array.from({ length: 100 }, (_, i) => ({ t: 1000 * i }))));
    // One section, t: its header, then its values' byte length and the varints.
    const lengthAt = 8 + 16;
    expect(packed.readUInt32LE(lengthAt)).toBe(1 + 99 * 2);
    const longer = Buffer.from(packed);
    longer.writeUInt32LE(5000, lengthAt);
    expect(() => unpackTrackPoints(longer)).toThrow(/damaged/);
    const unfinished = Buffer.from(packed);
    unfinished[lengthAt + 4 + 198] = 0x81;
    expect(() => unpackTrackPoints(unfinished)).toThrow(/damaged/);
  });

  it('renders the same JSON a slice at a time as whole, whatever the slice (property, issue 36)', () => {
    const value = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double(), fc.constant(Number.NaN));
    const point = fc
      .array(fc.tuple(fc.constantFrom(...TRACK_POINT_KEYS), value), { maxLength: 10 })
      .map((entries) => Object.fromEntries(entries) as TrackPoint);
    fc.assert(
      fc.property(fc.array(point, { maxLength: 80 }), fc.integer({ min: 1, max: 100 }), (points, slice) => {
        const packed = packTrackPoints(points);
        const slices = [...packedPointsJsonSlices(packed, slice)];
        expect(slices.join('')).toBe(packedPointsJson(packed));
        // '[', one slice per `slice` points, ']'
        expect(slices.length).toBe(2 + Math.ceil(points.length / slice));
      }),
    );
  });

  it('reads any keys as columns, NaN where a point has none, as the points read (property, issue 36)', () => {
    const value = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double(), fc.constant(Number.NaN));
    const point = fc
      .array(fc.tuple(fc.constantFrom(...TRACK_POINT_KEYS), value), { maxLength: 10 })
      .map((entries) => Object.fromEntries(entries) as TrackPoint);
    const keys = fc.uniqueArray(fc.constantFrom(...TRACK_POINT_KEYS), { minLength: 1 });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 80 }), keys, (points, wanted) => {
        const packed = packTrackPoints(points);
        const columns = new PackedPointsReader(packed).columns(wanted);
        const back = unpackTrackPoints(packed);
        for (const key of wanted) {
          expect(columns[key]).toHaveLength(points.length);
          expect(Array.from(columns[key])).toEqual(back.map((read) => read[key] ?? Number.NaN));
        }
      }),
    );
    // Only from a reader that has read nothing.
    const reader = new PackedPointsReader(packTrackPoints([{ t: 1 }, { t: 2 }]));
    reader.next(1);
    expect(() => reader.columns(['t'])).toThrow(/first point/);
  });
});

/** Version 1 of the packed form (float64 values), as servers before version 2 wrote it. */
function packVersion1(points: readonly TrackPoint[]): Uint8Array {
  const count = points.length;
  const bitmapBytes = Math.ceil(Math.ceil(count / 8) / 8) * 8;
  let mask = 0;
  const bytes: number[][] = [];
  TRACK_POINT_KEYS.forEach((key, k) => {
    const present = points.map((point) => Number.isFinite(point[key]));
    const values = points.flatMap((point) => (Number.isFinite(point[key]) ? [point[key]!] : []));
    if (values.length === 0) return;
    mask |= 1 << k;
    const section = new DataView(
      new ArrayBuffer(8 + (values.length < count ? bitmapBytes : 0) + values.length * 8),
    );
    section.setUint32(0, values.length, true);
    let offset = 8;
    if (values.length < count) {
      present.forEach((has, i) => {
        if (has) section.setUint8(offset + (i >> 3), section.getUint8(offset + (i >> 3)) | (1 << (i & 7)));
      });
      offset += bitmapBytes;
    }
    values.forEach((value, j) => {
      section.setFloat64(offset + 8 * j, value, true);
    });
    bytes.push([...new Uint8Array(section.buffer)]);
  });
  const header = new DataView(new ArrayBuffer(8));
  header.setUint8(0, 1);
  header.setUint16(2, mask, true);
  header.setUint32(4, count, true);
  return Uint8Array.from([...new Uint8Array(header.buffer), ...bytes.flat()]);
}
