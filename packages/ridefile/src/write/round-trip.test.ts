import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
} from '../../../../test/support/corpus.js';
import { RideFileError } from '../errors.js';
import type { RideFile, Track, TrackPoint } from '../model.js';
import { parseRideFile } from '../parse.js';
import { CSV_HEADER, writeCsv, writeGeoJson, writeGpx, writeTcx } from './index.js';
import { courseNames } from './tcx.js';

/**
 * Round trips over the whole corpus (issue 3): for every track, parse(write(parse(file))) keeps every
 * point and every channel the target format can carry, exactly (positions within 1e-7°, times to the
 * second). What a format cannot carry is named here and checked to be dropped, not garbled:
 *
 * - GPX: the order of rides and routes (the schema puts every route first); points without a position (GPX points need lat/lon); distance (no place for it); the wheel
 *   sensor (a written speed reads back as recorded, so `s` leaves the points); heart rate and cadence
 *   are whole numbers (TrackPointExtension's unsignedByte). A ride without any time reads back as a route.
 * - TCX: temperature; a heart rate of 0 (the schema's minimum is 1); heart rate, cadence (at most 254)
 *   and power are whole numbers; course names are cut to 15 characters and made unique (tcx.ts, courseNames); a wheel-sensor speed on a point
 *   without a wheel-sensor distance (TCX says "wheel sensor" only with SensorState and DistanceMeters).
 * - GeoJSON: points without a position. CSV carries everything.
 */

const readable = corpusFiles().flatMap((file) => {
  try {
    return [{ name: file.name, parsed: parseRideFile(readCorpus(file.name), { filename: file.name }) }];
  } catch (error) {
    if (error instanceof RideFileError) return []; // files with no track (corpus.test.ts names them)
    throw error;
  }
});

const hasPosition = (point: TrackPoint): boolean => point.x !== undefined && point.y !== undefined;
const whole = (value: number | undefined): number | undefined =>
  value === undefined ? undefined : Math.round(value);

/** What GPX keeps of a point. */
function asGpxKeeps(point: TrackPoint): TrackPoint {
  return definedOnly({
    x: point.x,
    y: point.y,
    e: point.e,
    t: point.t,
    c: whole(point.c),
    h: whole(point.h),
    p: point.p,
    T: point.T,
  });
}

/** What TCX keeps of a point on a track written as `sport`. */
function asTcxKeeps(point: TrackPoint): TrackPoint {
  return definedOnly({
    x: point.x,
    y: point.y,
    e: point.e,
    t: point.t,
    c: point.c === undefined ? undefined : Math.min(254, Math.round(point.c)),
    h: point.h === undefined || point.h < 1 ? undefined : Math.round(point.h),
    p: whole(point.p),
    s: point.d === undefined ? undefined : point.s,
    d: point.d,
  });
}

function definedOnly(point: Record<string, number | undefined>): TrackPoint {
  return Object.fromEntries(Object.entries(point).filter(([, value]) => value !== undefined));
}

/** Positions within 1e-7°, everything else exact. */
function expectSamePoints(actual: readonly TrackPoint[], expected: readonly TrackPoint[]): void {
  expect(actual.length, 'point count').toBe(expected.length);
  const mismatches: string[] = [];
  for (let i = 0; i < expected.length && mismatches.length < 5; i++) {
    const a = actual[i]!;
    const b = expected[i]!;
    const { x: ax, y: ay, ...aRest } = a;
    const { x: bx, y: by, ...bRest } = b;
    const samePosition =
      ax === undefined
        ? bx === undefined
        : bx !== undefined && Math.abs(ax - bx) <= 1e-7 && Math.abs(ay! - by!) <= 1e-7;
    if (!samePosition || JSON.stringify(sorted(aRest)) !== JSON.stringify(sorted(bRest))) {
      mismatches.push(`#${i}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`);
    }
  }
  expect(mismatches).toEqual([]);
}

function sorted(point: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(point).sort(([a], [b]) => a.localeCompare(b)));
}

describe.skipIf(!corpusAvailable)(
  `round trips over the corpus (${corpusAvailable ? 'all files' : CORPUS_SKIP_REASON})`,
  () => {
    it('covers every readable corpus file', () => {
      expect(readable.length).toBeGreaterThanOrEqual(80);
    });

    for (const { name, parsed } of readable) {
      describe(name, () => {
        it('GPX keeps every positioned point and what GPX can carry', () => {
          // Routes come first in GPX (the schema's order), then rides.
          const expected = [
            ...parsed.tracks.filter((track) => track.kind === 'route'),
            ...parsed.tracks.filter((track) => track.kind === 'ride'),
          ].filter((track) => track.points.some(hasPosition));
          if (expected.length === 0) {
            expect(() => parseRideFile(new TextEncoder().encode(writeGpx(parsed)))).toThrow(RideFileError);
            return;
          }
          const again = parseRideFile(new TextEncoder().encode(writeGpx(parsed)));
          expect(again.format).toBe('gpx');
          expect(again.creator).toBe(parsed.creator ?? 'Rideport');
          expect(again.tracks).toHaveLength(expected.length);
          again.tracks.forEach((track, index) => {
            const source = expected[index]!;
            expect(track.name).toBe(source.name);
            const timed = source.points.some((point) => hasPosition(point) && point.t !== undefined);
            expect(track.kind).toBe(source.kind === 'ride' && timed ? 'ride' : 'route');
            expectSamePoints(track.points, source.points.filter(hasPosition).map(asGpxKeeps));
            // The wheel sensor cannot be said in GPX: no s or d comes back.
            expect(track.points.some((point) => point.s !== undefined || point.d !== undefined)).toBe(false);
          });
        });

        it('TCX keeps every point and what TCX can carry', () => {
          const again = parseRideFile(new TextEncoder().encode(writeTcx(parsed)));
          expect(again.format).toBe('tcx');
          const rides = parsed.tracks.filter((track) => track.kind === 'ride');
          const routes = parsed.tracks.filter((track) => track.kind === 'route');
          expect(again.tracks).toHaveLength(parsed.tracks.length);
          const names = courseNames(routes);
          [...rides, ...routes].forEach((source, index) => {
            const track = again.tracks[index]!;
            expect(track.kind).toBe(source.kind);
            if (source.kind === 'route') expect(track.name).toBe(names[index - rides.length]);
            expectSamePoints(track.points, source.points.map(asTcxKeeps));
            expect(track.sensors.wheelSensor).toBe(source.points.some((point) => point.d !== undefined));
            expect(track.points.some((point) => point.T !== undefined)).toBe(false);
          });
        });

        it('GeoJSON keeps every positioned point with its channels, aligned', () => {
          expectGeoJsonCarries(parsed, JSON.parse(writeGeoJson(parsed)) as GeoJson);
        });

        it('CSV keeps every point and channel', () => {
          expectCsvCarries(parsed, writeCsv(parsed));
        });
      });
    }
  },
);

interface GeoJsonFeature {
  type: 'Feature';
  properties: {
    name: string | null;
    kind: string;
    coordinateProperties?: Record<string, Array<number | string | null>>;
  };
  geometry: { type: 'LineString' | 'Point'; coordinates: number[][] | number[] } | null;
}

interface GeoJson {
  type: 'FeatureCollection';
  features: GeoJsonFeature[];
}

/** Reads our GeoJSON back into points (the channels of coordinateProperties, by index) and compares. */
export function expectGeoJsonCarries(parsed: RideFile, geoJson: GeoJson): void {
  expect(geoJson.type).toBe('FeatureCollection');
  expect(geoJson.features).toHaveLength(parsed.tracks.length);
  parsed.tracks.forEach((source: Track, index) => {
    const feature = geoJson.features[index]!;
    const expected = source.points.filter(hasPosition);
    expect(feature.properties.name).toBe(source.name);
    expect(feature.properties.kind).toBe(source.kind);
    if (expected.length < 2) {
      expect(feature.geometry?.type ?? null).toBe(expected.length === 1 ? 'Point' : null);
      return;
    }
    expect(feature.geometry!.type).toBe('LineString');
    const coordinates = feature.geometry!.coordinates as number[][];
    const channels = feature.properties.coordinateProperties ?? {};
    for (const values of Object.values(channels)) expect(values).toHaveLength(coordinates.length);
    const value = (name: string, i: number): number | undefined => {
      const raw = channels[name]?.[i];
      return raw === null || raw === undefined ? undefined : (raw as number);
    };
    const points = coordinates.map((position, i) =>
      definedOnly({
        x: position[0],
        y: position[1],
        e: position[2] ?? value('elevations', i),
        t: typeof channels['times']?.[i] === 'string' ? Date.parse(channels['times'][i]) / 1000 : undefined,
        c: value('cads', i),
        h: value('heart', i),
        p: value('powers', i),
        s: value('speeds', i),
        d: value('distances', i),
        T: value('atemps', i),
      }),
    );
    expectSamePoints(points, expected);
  });
}

/** Reads our CSV back into points and compares with every point of every track. */
export function expectCsvCarries(parsed: RideFile, csv: string): void {
  const lines = csv.split('\r\n');
  expect(lines[0]).toBe(CSV_HEADER);
  expect(lines[lines.length - 1]).toBe('');
  const rows = lines.slice(1, -1).map((line) => line.split(','));
  const keys = ['x', 'y', 'e', 'h', 'c', 'p', 's', 'd', 'T'] as const;
  const byTrack = parsed.tracks.map((_, index) =>
    rows
      .filter((row) => row[0] === String(index + 1))
      .map((row) => {
        const [, time, unix, ...values] = row;
        const point: Record<string, number | undefined> = { t: unix === '' ? undefined : Number(unix) };
        if (time !== '') expect(Date.parse(time!) / 1000).toBe(point['t']);
        keys.forEach((key, k) => {
          point[key] = values[k] === '' ? undefined : Number(values[k]);
        });
        return definedOnly(point);
      }),
  );
  parsed.tracks.forEach((track, index) => {
    expectSamePoints(byTrack[index]!, track.points);
  });
}
