import { Decoder, Stream } from '@garmin/fitsdk';
import FitParser from 'fit-file-parser';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  readCorpus,
} from '../../../../test/support/corpus.js';
import { RideFileError, RideFileErrorCode } from '../errors.js';
import { parseRideFile } from '../parse.js';

/**
 * Differential checks of our FIT decoder against @garmin/fitsdk and fit-file-parser (issue 2): on every
 * corpus FIT file where the peer itself succeeds, the same records in the same order, with positions
 * within 1e-7°, the same whole-second times and the same heart rate, cadence and power.
 *
 * Differences that remain are listed in KNOWN_DIFFERENCES with the reason; everything else must match.
 */

interface Sample {
  lat: number | undefined;
  lon: number | undefined;
  t: number | undefined;
  h: number | undefined;
  c: number | undefined;
  p: number | undefined;
}

type Peer = 'fitsdk' | 'fit-file-parser';

interface KnownDifference {
  /** compare with our first track only */
  firstFileOnly?: true;
  /** channels the peer reads differently, by design */
  ignore?: ReadonlyArray<keyof Sample>;
  /** the peer's records that hold nothing once the ignored channels are left out make no point of ours */
  dropEmpty?: true;
  /** the peer's last record is one we do not read */
  dropLast?: true;
  why: string;
}

const KNOWN_DIFFERENCES: Readonly<Record<string, Partial<Record<Peer, KnownDifference>>>> = {
  'fitdecode__activity-activity-filecrc.fit': {
    'fit-file-parser': { firstFileOnly: true, why: 'fit-file-parser reads only the first file of a chain' },
  },
  'muktihari-fit__chained_Activity_activity_poolswim.fit': {
    'fit-file-parser': { firstFileOnly: true, why: 'fit-file-parser reads only the first file of a chain' },
  },
  'fitparse__compressed-speed-distance.fit': {
    'fit-file-parser': {
      ignore: ['t'],
      dropEmpty: true,
      why:
        'the FR70 never set its clock: every date_time is below 0x10000000 (seconds since power-on) and the ' +
        'file has no timestamp_correlation, so we give no time (docs/contributors/architecture.md); fit-file-parser dates them in 1990. ' +
        'Its first record holds only that time, so it is no point of ours',
    },
  },
  'fitparse__nick.fit': {
    'fit-file-parser': {
      dropLast: true,
      why:
        'the Sigma file ends inside its last record; fit-file-parser keeps what it read of it, we keep no ' +
        'half-read record (issue 16), as @garmin/fitsdk does',
    },
  },
  'garmin-fitsdk-js__HrmPluginTestActivity.fit': {
    'fit-file-parser': {
      ignore: ['h'],
      why: 'fit-file-parser does not merge `hr` messages into records; we do, as @garmin/fitsdk does (it agrees)',
    },
  },
};

/**
 * Files whose records make no track: neither a time nor a position on any of them (issue 16: refused
 * as a file without records is). The peers read the records; there is nothing of ours to compare.
 */
const WE_REFUSE: Readonly<Record<string, string>> = {
  'fitparse__DeveloperData.fit':
    'three records of heart rate, cadence, speed and distance, no time, no position',
};

/** Files each peer cannot read (SOURCES.md records the same errors); we read all the others. */
const PEER_FAILS: Readonly<Record<Peer, ReadonlySet<string>>> = {
  fitsdk: new Set([
    'fit-parser__triathlon_summary_first.fit', // accumulator crash on summary-first files
    'fitdecode__activity-activity-filecrc.fit', // CRC error
    'fitdecode__activity-filecrc.fit', // CRC error
    'fitdecode__activity-unexpected-eof.fit', // end of stream
    'fitparse__compressed-speed-distance.fit', // compressed timestamps unsupported
    'fitparse__nick.fit', // end of stream
    'fitparse__strava-android-app-201.10-b1218918.fit', // misaligned data
    'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit', // compressed timestamps unsupported
  ]),
  'fit-file-parser': new Set([
    'fitdecode__activity-unexpected-eof.fit', // data exceeds input length
    'fitparse__strava-android-app-201.10-b1218918.fit', // data exceeds input length
    'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit', // invalid record header
  ]),
};

describe.skipIf(!corpusAvailable)(
  `FIT differential checks (${corpusAvailable ? 'corpus' : CORPUS_SKIP_REASON})`,
  () => {
    const files = corpusFiles('fit');

    it('covers the corpus', () => {
      expect(files.length).toBeGreaterThanOrEqual(30);
    });

    for (const file of files) {
      describe(file.name, () => {
        const bytes = readCorpus(file.name);
        const refused = WE_REFUSE[file.name];
        if (refused !== undefined) {
          it(`is refused as holding no track (${refused})`, () => {
            expect(() => parseRideFile(bytes)).toThrow(RideFileError);
            expect(() => parseRideFile(bytes)).toThrow(
              expect.objectContaining({ code: RideFileErrorCode.NO_TRACKS }),
            );
          });
          return;
        }
        const tracks = parseRideFile(bytes, { filename: file.name }).tracks;
        const ours = (firstFileOnly: boolean): Sample[] =>
          (firstFileOnly ? tracks.slice(0, 1) : tracks).flatMap((track) =>
            track.points.map((point) => ({
              lat: point.y,
              lon: point.x,
              t: point.t,
              h: point.h,
              c: point.c,
              p: point.p,
            })),
          );

        it('matches @garmin/fitsdk where it reads the file', () => {
          const peer = readWithFitSdk(bytes);
          expect(peer === null, 'the SDK fails on exactly the files listed').toBe(
            PEER_FAILS.fitsdk.has(file.name),
          );
          if (peer !== null) compare(ours(false), peer, KNOWN_DIFFERENCES[file.name]?.fitsdk);
        });

        it('matches fit-file-parser where it reads the file', async () => {
          const peer = await readWithFitFileParser(bytes);
          expect(peer === null, 'fit-file-parser fails on exactly the files listed').toBe(
            PEER_FAILS['fit-file-parser'].has(file.name),
          );
          const known = KNOWN_DIFFERENCES[file.name]?.['fit-file-parser'];
          if (peer !== null) compare(ours(known?.firstFileOnly === true), peer, known);
        });
      });
    }
  },
);

function compare(ours: Sample[], allPeer: Sample[], known: KnownDifference | undefined): void {
  const ignored = new Set(known?.ignore ?? []);
  const keys = (['lat', 't', 'h', 'c', 'p'] as const).filter((key) => !ignored.has(key));
  const kept = known?.dropLast === true ? allPeer.slice(0, -1) : allPeer;
  const peer =
    known?.dropEmpty === true ? kept.filter((sample) => keys.some((key) => sample[key] !== undefined)) : kept;
  expect(ours.length, 'point count').toBe(peer.length);
  const mismatches: string[] = [];
  for (let i = 0; i < peer.length; i++) {
    const a = ours[i]!;
    const b = peer[i]!;
    if (!ignored.has('lat')) {
      const samePosition =
        a.lat === undefined
          ? b.lat === undefined
          : b.lat !== undefined && Math.abs(a.lat - b.lat) <= 1e-7 && Math.abs(a.lon! - b.lon!) <= 1e-7;
      if (!samePosition) mismatches.push(`#${i} position ${a.lat},${a.lon} ≠ ${b.lat},${b.lon}`);
    }
    for (const key of ['t', 'h', 'c', 'p'] as const) {
      if (!ignored.has(key) && a[key] !== b[key]) mismatches.push(`#${i} ${key} ${a[key]} ≠ ${b[key]}`);
    }
  }
  expect(mismatches.slice(0, 5), `${mismatches.length} mismatches`).toEqual([]);
}

const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;

interface SdkRecord {
  positionLat?: number;
  positionLong?: number;
  timestamp?: Date;
  heartRate?: number;
  cadence?: number;
  power?: number;
}

/** @garmin/fitsdk's records, or null when it reports an error for the file. */
function readWithFitSdk(bytes: Uint8Array): Sample[] | null {
  try {
    const { messages, errors } = new Decoder(Stream.fromByteArray(bytes)).read({ mergeHeartRates: true });
    if (errors.length > 0) return null;
    const records = (messages as { recordMesgs?: SdkRecord[] }).recordMesgs ?? [];
    return records.map((record) => {
      const hasPosition = record.positionLat !== undefined && record.positionLong !== undefined;
      return {
        lat: hasPosition ? record.positionLat! * SEMICIRCLES_TO_DEGREES : undefined,
        lon: hasPosition ? record.positionLong! * SEMICIRCLES_TO_DEGREES : undefined,
        t: record.timestamp === undefined ? undefined : Math.floor(record.timestamp.getTime() / 1000),
        h: record.heartRate,
        c: record.cadence,
        p: record.power,
      };
    });
  } catch {
    return null;
  }
}

interface FitFileParserRecord {
  position_lat?: number;
  position_long?: number;
  timestamp?: Date | string;
  heart_rate?: number;
  cadence?: number;
  power?: number;
}

/** fit-file-parser's records (force mode, as people use it), or null when it fails on the file. */
async function readWithFitFileParser(bytes: Uint8Array): Promise<Sample[] | null> {
  try {
    const parser = new FitParser({ force: true, mode: 'list' });
    const data = (await parser.parseAsync(Buffer.from(bytes))) as { records?: FitFileParserRecord[] };
    return (data.records ?? []).map((record) => ({
      lat: record.position_lat,
      lon: record.position_long,
      t: record.timestamp === undefined ? undefined : Math.floor(new Date(record.timestamp).getTime() / 1000),
      h: record.heart_rate,
      c: record.cadence,
      p: record.power,
    }));
  } catch {
    return null;
  }
}
