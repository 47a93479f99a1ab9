/**
 * What identifies the recording a track came from (issue 16, "One ride per ride"): FIT file_id's
 * serial number and creation time, TCX Creator/UnitId, and our TCX writer writing the serial back as
 * Garmin Connect's export does, so an export is recognised as the same recording.
 */
import { Decoder, Stream } from '@garmin/fitsdk';
import { describe, expect, it } from 'vitest';
import { chainedFixtureParts } from '../../../fixtures/fit/generate.js';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
  readFixture,
} from '../../../test/support/corpus.js';
import { parseRideFile } from './parse.js';
import { writeGpx, writeTcx } from './write/index.js';

/** file_id as @garmin/fitsdk reads it: the serial number and time_created (a Date), per chained file. */
function sdkFileIds(bytes: Uint8Array): { serialNumber?: number; timeCreated?: Date }[] {
  const decoder = new Decoder(Stream.fromByteArray(Array.from(bytes)));
  const { messages } = decoder.read();
  return (messages.fileIdMesgs ?? []) as { serialNumber?: number; timeCreated?: Date }[];
}

describe('FIT: file_id identifies the recording', () => {
  it('a fixture: serial_number as text, time_created as Unix seconds, as @garmin/fitsdk reads them', () => {
    const bytes = readFixture('fit', 'wheel-antplus-bike-speed.fit');
    const [track] = parseRideFile(bytes).tracks;
    const [fileId] = sdkFileIds(bytes);
    expect(track?.recording).toEqual({
      serialNumber: String(fileId?.serialNumber),
      timeCreated: (fileId?.timeCreated?.getTime() ?? NaN) / 1000,
    });
    expect(track?.recording.serialNumber).toBe('3300000001');
  });

  it('each file of a chained stream keeps its own file_id', () => {
    const [ride, run] = chainedFixtureParts();
    const tracks = parseRideFile(readFixture('fit', 'chained.fit')).tracks;
    expect(tracks.map((track) => track.recording)).toEqual(
      [ride, run].map((part) => {
        const [fileId] = sdkFileIds(part);
        return {
          serialNumber: String(fileId?.serialNumber),
          timeCreated: (fileId?.timeCreated?.getTime() ?? NaN) / 1000,
        };
      }),
    );
    expect(tracks[1]!.recording.timeCreated! - tracks[0]!.recording.timeCreated!).toBe(3600);
  });
});

describe.skipIf(!corpusAvailable)(
  `FIT and TCX corpus (${corpusAvailable ? 'real files' : CORPUS_SKIP_REASON})`,
  () => {
    it('every FIT file: the serial and creation time @garmin/fitsdk reads, or null where it reads none', () => {
      const mismatches: string[] = [];
      for (const file of corpusFiles('fit')) {
        const bytes = readCorpus(file.name);
        let tracks;
        try {
          tracks = parseRideFile(bytes).tracks;
        } catch {
          continue;
        }
        let fileIds: { serialNumber?: number; timeCreated?: Date }[];
        try {
          fileIds = sdkFileIds(bytes);
        } catch {
          continue; // files the SDK cannot read (SOURCES.md names them)
        }
        const [fileId] = fileIds;
        const [track] = tracks;
        if (fileId === undefined || track === undefined) continue;
        const serial = fileId.serialNumber === undefined ? null : String(fileId.serialNumber);
        if (track.recording.serialNumber !== serial) {
          mismatches.push(`${file.name}: serial ${track.recording.serialNumber} ≠ ${serial}`);
        }
        const created = fileId.timeCreated === undefined ? null : fileId.timeCreated.getTime() / 1000;
        // A time_created below 0x10000000 counts from power-on: the SDK dates it in 1990, we say unknown.
        const expected = created !== null && created < Date.UTC(1998, 6, 1) / 1000 ? null : created;
        if (track.recording.timeCreated !== expected) {
          mismatches.push(`${file.name}: time_created ${track.recording.timeCreated} ≠ ${expected}`);
        }
      }
      expect(mismatches).toEqual([]);
    });

    it('a device-relative time_created names no moment', () => {
      const [track] = parseRideFile(readCorpus('fitparse__compressed-speed-distance.fit')).tracks;
      expect(track?.recording).toEqual({ serialNumber: '1215347', timeCreated: null });
    });
  },
);

describe('our TCX writer writes the serial number as Creator/UnitId, as Garmin Connect exports it', () => {
  it('FIT → TCX → read: the same serial; time_created has no place in TCX', () => {
    const fit = parseRideFile(readFixture('fit', 'wheel-antplus-bike-speed.fit'));
    const [exported] = parseRideFile(new TextEncoder().encode(writeTcx(fit))).tracks;
    expect(exported?.recording).toEqual({ serialNumber: '3300000001', timeCreated: null });
    expect(exported?.summary.device).toBe(fit.tracks[0]?.summary.device);
  });

  it('a track without a serial number is written with UnitId 0, which reads back as unknown', () => {
    const gpx = parseRideFile(
      new TextEncoder().encode(writeGpx(parseRideFile(readFixture('fit', 'chained.fit')))),
    );
    const tcx = writeTcx(gpx);
    expect(tcx).toContain('<UnitId>0</UnitId>');
    expect(parseRideFile(new TextEncoder().encode(tcx)).tracks.map((track) => track.recording)).toEqual(
      gpx.tracks.map(() => ({ serialNumber: null, timeCreated: null })),
    );
  });

  it('a serial number that is not an xsd:unsignedInt is never written', () => {
    const [track] = parseRideFile(readFixture('fit', 'wheel-antplus-bike-speed.fit')).tracks;
    for (const serialNumber of ['12ab', '4294967296', '-1', '']) {
      const tcx = writeTcx({ ...track!, recording: { serialNumber, timeCreated: null } });
      expect(tcx).toContain('<UnitId>0</UnitId>');
    }
  });
});
