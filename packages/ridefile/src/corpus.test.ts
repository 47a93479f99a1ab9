import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
} from '../../../test/support/corpus.js';
import { invariantViolations } from '../../../test/support/invariants.js';
import { RideFileError, RideFileErrorCode } from './errors.js';
import { TRACK_POINT_KEYS, type RideFile, type TrackPoint } from './model.js';
import { parseRideFile } from './parse.js';

/**
 * Every file of the real-world corpus (issue 2): the invariants every point must keep, a compact
 * snapshot per file (counts per channel, first and last point, summary), and gzip-wrapped twins.
 */

/**
 * Corpus files that hold no track at all (SOURCES.md): metadata only, waypoints only, or records with
 * neither a time nor a position (issue 16: refused as a file without records is).
 */
const NO_TRACKS: Readonly<Record<string, string>> = {
  'fitparse__DeveloperData.fit': 'three FIT records with neither a time nor a position',
  'goldencheetah__MetadataOnly.gpx': 'a Strava GPX with metadata and no points',
  'gpxpy__gpx_with_garmin_extension.gpx': 'a single waypoint, no track or route',
  'opentracks__kml22_without_locations.kml': 'a gx:Track with no when and no coord',
};

describe.skipIf(!corpusAvailable)(`corpus (${corpusAvailable ? 'all files' : CORPUS_SKIP_REASON})`, () => {
  const files = corpusFiles();

  it('holds the whole corpus of SOURCES.md', () => {
    expect(files.length).toBe(86);
  });

  for (const file of files) {
    describe(file.name, () => {
      const bytes = readCorpus(file.name);

      if (file.name in NO_TRACKS) {
        it(`is refused as holding no track (${NO_TRACKS[file.name]})`, () => {
          expect(() => parseRideFile(bytes)).toThrow(RideFileError);
          try {
            parseRideFile(bytes);
          } catch (error) {
            expect((error as RideFileError).code).toBe(RideFileErrorCode.NO_TRACKS);
          }
        });
        return;
      }

      const result = parseRideFile(bytes, { filename: file.name });

      it('is read as its own format, with tracks', () => {
        expect(result.format).toBe(file.format);
        expect(result.tracks.length).toBeGreaterThan(0);
        for (const track of result.tracks) expect(track.points.length).toBeGreaterThan(0);
      });

      it('keeps the point invariants', () => {
        for (const track of result.tracks) expect(invariantViolations(track)).toEqual([]);
      });

      it('matches its snapshot', () => {
        expect(compact(result)).toMatchSnapshot();
      });

      it('reads the same once gzipped', () => {
        const gzipped = parseRideFile(gzipSync(bytes));
        expect(gzipped.tracks.map((track) => track.points)).toEqual(
          result.tracks.map((track) => track.points),
        );
        expect(gzipped.tracks.map((track) => track.summary)).toEqual(
          result.tracks.map((track) => track.summary),
        );
      });
    });
  }
});

/** A compact, stable picture of a parse for snapshots: counts and ends rather than every point. */
function compact(result: RideFile): unknown {
  return {
    format: result.format,
    creator: result.creator,
    warnings: result.warnings.map((warning) => warning.code),
    tracks: result.tracks.map((track) => ({
      kind: track.kind,
      name: track.name,
      sport: track.sport,
      subSport: track.subSport,
      startTime: track.startTime,
      points: track.points.length,
      channels: channelCounts(track.points),
      first: rounded(track.points[0]),
      last: rounded(track.points[track.points.length - 1]),
      laps: track.laps.length,
      wheelSensor: track.sensors.wheelSensor,
      wheelSensorReason: track.sensors.wheelSensorReason,
      devices: track.sensors.devices.length,
      summary: rounded(track.summary),
    })),
  };
}

function channelCounts(points: TrackPoint[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const point of points) for (const key of Object.keys(point)) counts[key] = (counts[key] ?? 0) + 1;
  return Object.fromEntries(TRACK_POINT_KEYS.flatMap((key) => (key in counts ? [[key, counts[key]!]] : [])));
}

/** Numbers to 6 significant digits, so snapshots do not depend on the last bit of a float. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(6));
  if (Array.isArray(value)) return value.map(rounded);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]));
  }
  return value;
}
