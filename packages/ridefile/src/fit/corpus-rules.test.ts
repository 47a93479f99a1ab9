import { Decoder, Stream, type RecordMesg } from '@garmin/fitsdk';
import FitParser from 'fit-file-parser';
import { describe, expect, it } from 'vitest';
import { CORPUS_SKIP_REASON, corpusAvailable, readCorpus } from '../../../../test/support/corpus.js';
import { readFit } from './read.js';
import { invariantViolations } from '../../../../test/support/invariants.js';
import { RideFileWarningCode } from '../errors.js';
import type { RideFile, Track } from '../model.js';
import { parseRideFile } from '../parse.js';

/**
 * The FIT rules of docs/contributors/architecture.md (`@rideport/ridefile`) where a real recording of the corpus shows them
 * (../shared/corpus/fit, SOURCES.md). The synthetic fixtures (fixtures.test.ts) cover the cases the
 * corpus lacks.
 */

const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;

function parse(name: string): RideFile {
  return parseRideFile(readCorpus(name), { filename: name });
}

function onlyTrack(result: RideFile): Track {
  expect(result.tracks).toHaveLength(1);
  return result.tracks[0]!;
}

function warningCodes(result: RideFile): string[] {
  return result.warnings.map((warning) => warning.code);
}

function count(track: Track, key: 's' | 'd' | 't' | 'h'): number {
  return track.points.filter((point) => point[key] !== undefined).length;
}

function sdkRecords(bytes: Uint8Array, mergeHeartRates = true): { records: RecordMesg[]; errors: Error[] } {
  const { messages, errors } = new Decoder(Stream.fromByteArray(bytes)).read({ mergeHeartRates });
  return { records: messages.recordMesgs ?? [], errors };
}

/** The SDK's date_time as Unix seconds (it gives Dates; "min" and absent values are no time). */
function unixSeconds(value: unknown): number | undefined {
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  return typeof value === 'number' ? value : undefined;
}

describe.skipIf(!corpusAvailable)(
  `FIT rules on the real corpus (${corpusAvailable ? 'corpus' : CORPUS_SKIP_REASON})`,
  () => {
    describe('wheel sensor present', () => {
      it('ELEMNT: ANT+ bike_speed and a BLE source with the ANT+ number 121 → wheel, s and d kept', () => {
        const track = onlyTrack(parse('fitparse__2019-02-17-062644-ELEMNT-297E-195-0.fit'));
        expect(track.sensors.wheelSensor).toBe(true);
        expect(track.sensors.devices).toContainEqual(
          expect.objectContaining({ sourceType: 'antplus', deviceType: 'bike_speed' }),
        );
        expect(track.sensors.devices).toContainEqual(
          expect.objectContaining({ sourceType: 'bluetooth_low_energy', deviceType: '121' }),
        );
        // SOURCES.md: speed on 13426 records, distance on 13425.
        expect(count(track, 's')).toBe(13426);
        expect(count(track, 'd')).toBe(13425);
        expect(invariantViolations(track)).toEqual([]);
      });

      it('Edge 500: bike_speed_cadence (121) without source_type → wheel', () => {
        const track = onlyTrack(parse('fitparse__garmin-edge-500-activity.fit'));
        expect(track.sensors.wheelSensor).toBe(true);
        expect(track.sensors.devices).toContainEqual(
          expect.objectContaining({ sourceType: null, deviceType: 'bike_speed_cadence' }),
        );
        expect(count(track, 's')).toBe(10686);
        expect(count(track, 'd')).toBe(10686);
        expect(invariantViolations(track)).toEqual([]);
      });

      it('Edge 520: ANT+ bike_speed (123) → wheel', () => {
        const track = onlyTrack(parse('goldencheetah__2018-10-03-07-45-28.fit'));
        expect(track.sensors.wheelSensor).toBe(true);
        expect(track.sensors.devices).toContainEqual(
          expect.objectContaining({ sourceType: 'antplus', deviceType: 'bike_speed' }),
        );
        expect(count(track, 's')).toBe(928);
        expect(count(track, 'd')).toBe(928);
        expect(invariantViolations(track)).toEqual([]);
      });
    });

    describe('no wheel sensor', () => {
      it('Karoo: BLE power and heart rate only → no s, no d', () => {
        const track = onlyTrack(parse('fitfilefaker__karoo_20251119.fit'));
        expect(track.sensors.wheelSensor).toBe(false);
        const paired = track.sensors.devices.filter((device) => device.index !== 0);
        expect(paired.length).toBeGreaterThan(0);
        for (const device of paired) expect(device.sourceType).toBe('bluetooth_low_energy');
        expect(count(track, 's')).toBe(0);
        expect(count(track, 'd')).toBe(0);
      });

      for (const name of ['FITfileR__zwift-turbo.fit', 'fitfilefaker__tpv_20251120.fit']) {
        it(`${name}: a virtual ride → no s, no d`, () => {
          const track = onlyTrack(parse(name));
          expect(track.subSport).toBe('virtual_activity');
          expect(track.sensors.wheelSensor).toBe(false);
          expect(count(track, 's')).toBe(0);
          expect(count(track, 'd')).toBe(0);
          expect(track.points.length).toBeGreaterThan(3000);
        });
      }
    });

    it('Fenix 2 multisport (run, run, ride, transitions) → ONE track of sport multisport', () => {
      const track = onlyTrack(parse('fitparse__activity-large-fenxi2-multisport.fit'));
      expect(track.sport).toBe('multisport');
      expect(track.points).toHaveLength(24239);
      expect(invariantViolations(track)).toEqual([]);
    });

    it('chained SDK activity + pool swim → two tracks', () => {
      const result = parse('muktihari-fit__chained_Activity_activity_poolswim.fit');
      expect(result.tracks).toHaveLength(2);
      const [first, second] = result.tracks as [Track, Track];
      // SOURCES.md: 3625 records in all; fit-file-parser, which reads only the first file, finds 3601.
      expect(first.points).toHaveLength(3601);
      expect(second.points).toHaveLength(24);
      expect(second.sport).toBe('swimming');
    });

    describe('device-relative times and compressed headers', () => {
      const name = 'fitparse__compressed-speed-distance.fit';

      it(`${name}: 755 records, device-relative times without correction → no t, RELATIVE_TIME`, () => {
        const result = parse(name);
        const track = onlyTrack(result);
        expect(warningCodes(result)).toContain(RideFileWarningCode.RELATIVE_TIME);
        // The first record holds only its (device-relative) time: without the time it says nothing.
        expect(track.points).toHaveLength(754);
        expect(track.kind).toBe('ride');
        expect(count(track, 't')).toBe(0);
        expect(track.startTime).toBeNull();
      });

      it(`${name}: compressed_speed_distance expands into speed (checked against its raw bytes)`, async () => {
        const track = onlyTrack(parse(name));
        // fit-file-parser leaves the component field as bytes: 12 bits of speed (cm/s) come first.
        const parser = new FitParser({ force: true, mode: 'list' });
        const data = (await parser.parseAsync(Buffer.from(readCorpus(name)))) as {
          records: Array<{ compressed_speed_distance?: number[]; heart_rate?: number }>;
        };
        const speeds = data.records
          .map((record) => record.compressed_speed_distance)
          .filter((bytes): bytes is number[] => bytes !== undefined)
          .map(([low = 0, high = 0]) => (low | ((high & 0x0f) << 8)) / 100);
        expect(speeds).toHaveLength(754);
        // The records' speed column (the summary gives no speed: device-relative times, no moving time).
        const { columns } = readFit(readCorpus(name), { maxPoints: 2_000_000 }).drafts[0]!;
        const recorded = [...columns.s.subarray(0, columns.length)].filter((speed) => !Number.isNaN(speed));
        expect(Math.max(...recorded)).toBeCloseTo(Math.max(...speeds), 9);
        expect(track.summary.speedMetersPerSecond).toBeNull();
        // No wheel sensor on a running watch: the speed stays out of the points.
        expect(count(track, 's')).toBe(0);
        expect(track.points.map((point) => point.h)).toEqual(
          data.records.slice(1).map((record) => record.heart_rate),
        );
      });
    });

    it('Lezyne Super GPS (bad CRC, a garbled stretch) → read, warned, the SDK’s records first', () => {
      const name = 'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit';
      const bytes = readCorpus(name);
      const result = parseRideFile(bytes, { filename: name });
      expect(warningCodes(result)).toContain(RideFileWarningCode.BAD_CRC);
      expect(warningCodes(result)).toContain(RideFileWarningCode.SKIPPED_DATA);
      const track = onlyTrack(result);
      // @garmin/fitsdk stops at the garbled byte 22181 (SOURCES.md) after 804 records; ours are the same.
      const sdk = sdkRecords(bytes);
      expect(sdk.errors.length).toBeGreaterThan(0);
      expect(sdk.records).toHaveLength(804);
      expect(track.points.length).toBeGreaterThanOrEqual(804);
      sdk.records.forEach((record, index) => {
        const point = track.points[index]!;
        expect(point.t).toBe(unixSeconds(record.timestamp));
        expect(point.y).toBeCloseTo(Number(record.positionLat) * SEMICIRCLES_TO_DEGREES, 9);
        expect(point.x).toBeCloseTo(Number(record.positionLong) * SEMICIRCLES_TO_DEGREES, 9);
      });
      expect(invariantViolations(track)).toEqual([]);
    });

    describe('damaged files keep their data', () => {
      it('unexpected EOF → 14 points and a TRUNCATED warning', () => {
        const result = parse('fitdecode__activity-unexpected-eof.fit');
        expect(warningCodes(result)).toContain(RideFileWarningCode.TRUNCATED);
        expect(onlyTrack(result).points).toHaveLength(14);
      });

      it('wrong file CRC → 14 points and a BAD_CRC warning', () => {
        const result = parse('fitdecode__activity-filecrc.fit');
        expect(warningCodes(result)).toEqual([RideFileWarningCode.BAD_CRC]);
        expect(onlyTrack(result).points).toHaveLength(14);
      });
    });

    it('HRM plugin test activity: every record’s heart rate as @garmin/fitsdk merges the hr messages', () => {
      const name = 'garmin-fitsdk-js__HrmPluginTestActivity.fit';
      const bytes = readCorpus(name);
      const merged = sdkRecords(bytes);
      expect(merged.errors).toEqual([]);
      const track = onlyTrack(parseRideFile(bytes, { filename: name }));
      expect(track.points.map((point) => point.h)).toEqual(merged.records.map((record) => record.heartRate));
      // The merge changes something: without it the SDK gives other heart rates.
      const unmerged = sdkRecords(bytes, false).records.map((record) => record.heartRate);
      expect(unmerged).not.toEqual(merged.records.map((record) => record.heartRate));
    });
  },
);
