import { describe, expect, it } from 'vitest';
import { RawFitWriter } from '../../../../fixtures/fit/generate.js';
import { readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_MAX_POINTS } from '../columns.js';
import { RideFileWarningCode } from '../errors.js';
import { parseRideFile } from '../parse.js';
import { fitCrc } from './crc.js';
import { decodeFit, definitionHash } from './decoder.js';

const RECORD = 20;
const FILE_ID = 0;
const DEVICE_INFO = 23;
const TIMESTAMP = 253;
const HEART_RATE = 3;
const CADENCE = 4;
/** FIT time of 2024-05-04T08:00:00Z */
const START = 1_083_744_000;
/** Record field numbers the profile does not define: read past, and free to vary the definition's bytes. */
const UNKNOWN_FIELDS = Array.from({ length: 150 }, (_, index) => 100 + index);

/** The bytes of a record definition (little-endian) from its architecture byte on, as the decoder hashes them. */
function definitionBytes(fieldNums: readonly number[]): Uint8Array {
  const fields = fieldNums.flatMap((num) => (num === TIMESTAMP ? [num, 4, 0x86] : [num, 1, 0x02]));
  return Uint8Array.from([0, RECORD, 0, fieldNums.length, ...fields]);
}

function hashOf(fieldNums: readonly number[]): number {
  const bytes = definitionBytes(fieldNums);
  return definitionHash(bytes, 0, bytes.length, false);
}

/**
 * A heart-rate layout and a cadence layout, each [timestamp, channel, three unknown fields], whose
 * definition bytes hash alike: a search over the unknown fields (200,000 heart-rate layouts, then
 * cadence layouts until one collides: the 648,505th does).
 */
function collidingLayouts(): [number[], number[]] {
  const bytes = definitionBytes([TIMESTAMP, HEART_RATE, 0, 0, 0]);
  const channelAt = 7;
  const unknownAt = [10, 13, 16] as const;
  const heartRateByHash = new Map<number, number>();
  /** The k-th unknown field of candidate `code` (its digits in base UNKNOWN_FIELDS.length). */
  const unknownField = (code: number, k: number): number =>
    UNKNOWN_FIELDS[Math.floor(code / UNKNOWN_FIELDS.length ** k) % UNKNOWN_FIELDS.length]!;
  const layoutOf = (channel: number, code: number): number[] => [
    TIMESTAMP,
    channel,
    ...unknownAt.map((_, k) => unknownField(code, k)),
  ];
  const combinations = UNKNOWN_FIELDS.length ** unknownAt.length;
  for (const channel of [HEART_RATE, CADENCE]) {
    bytes[channelAt] = channel;
    for (let code = 0; code < (channel === HEART_RATE ? 200_000 : combinations); code++) {
      unknownAt.forEach((at, k) => (bytes[at] = unknownField(code, k)));
      const hash = definitionHash(bytes, 0, bytes.length, false);
      const twin = heartRateByHash.get(hash);
      if (channel === HEART_RATE) heartRateByHash.set(hash, code);
      else if (twin !== undefined) return [layoutOf(HEART_RATE, twin), layoutOf(CADENCE, code)];
    }
  }
  throw new Error('no colliding layouts found');
}

describe('FIT decoder: the definition cache', () => {
  it('reads each of two definitions whose bytes hash alike by its own layout', () => {
    const [heartRateLayout, cadenceLayout] = collidingLayouts();
    expect(hashOf(heartRateLayout)).toBe(hashOf(cadenceLayout));
    const field = (num: number): { num: number; type: 'uint32' | 'uint8' } => ({
      num,
      type: num === TIMESTAMP ? 'uint32' : 'uint8',
    });
    const writer = new RawFitWriter({ bigEndian: false });
    // Local 0 is redefined each time: heart rate, cadence, heart rate again (the cache then holds cadence's).
    [heartRateLayout, cadenceLayout, heartRateLayout].forEach((layout, index) => {
      writer.define(0, RECORD, layout.map(field));
      writer.write(0, [START + index, 100 + index, 0, 0, 0]);
    });
    const [track] = parseRideFile(writer.bytes()).tracks;
    expect(track?.points.map(({ h, c }) => ({ h, c }))).toEqual([
      { h: 100, c: undefined },
      { h: undefined, c: 101 },
      { h: 102, c: undefined },
    ]);
  });
});

describe('FIT decoder: messages besides record', () => {
  it('keeps only the messages asked for, and still reads the field descriptions of developer fields', () => {
    const bytes = readFixture('fit', 'developer-power-native-wins.fit');
    const [segment] = decodeFit(bytes, {
      maxPoints: DEFAULT_MAX_POINTS,
      messages: new Set(['session']),
    }).segments;
    expect([...segment!.messages.keys()]).toEqual(['session']);
    expect(segment!.developerFields.map((field) => field.name)).toEqual(['Power']);
    const everything = decodeFit(bytes, {
      maxPoints: DEFAULT_MAX_POINTS,
      messages: new Set(['session', 'event', 'lap', 'deviceInfo', 'fieldDescription']),
    }).segments[0]!;
    expect([...everything.messages.keys()].sort()).toEqual([
      'deviceInfo',
      'event',
      'fieldDescription',
      'lap',
      'session',
    ]);
    // The developer power fills the records whatever messages are kept.
    expect(Array.from(segment!.records.p.subarray(0, 40))).toEqual(
      Array.from(everything.records.p.subarray(0, 40)),
    );
  });

  it('decodes a device_info once however often it repeats with only a new timestamp', () => {
    const writer = new RawFitWriter({ bigEndian: false })
      .define(0, FILE_ID, [
        { num: 0, type: 'enum' },
        { num: 4, type: 'uint32' },
      ])
      .write(0, [4, START])
      .define(1, DEVICE_INFO, [
        { num: 253, type: 'uint32' },
        { num: 0, type: 'uint8' },
        { num: 1, type: 'uint8' },
        { num: 25, type: 'enum' },
      ])
      .define(2, RECORD, [
        { num: TIMESTAMP, type: 'uint32' },
        { num: HEART_RATE, type: 'uint8' },
      ]);
    // Three devices (two under device_index 2), each announced again every third record.
    const devices = [
      [1, 120, 1],
      [2, 120, 1],
      [2, 121, 1],
    ];
    for (let i = 0; i < 30; i++) {
      writer.write(1, [START + i, ...devices[i % 3]!]);
      writer.write(2, [START + i, 100 + i]);
    }
    const [segment] = decodeFit(writer.bytes(), {
      maxPoints: DEFAULT_MAX_POINTS,
      messages: new Set(['deviceInfo']),
    }).segments;
    expect(
      segment!.messages.get('deviceInfo')?.map((info) => [info['deviceIndex'], info['deviceType']]),
    ).toEqual([
      [1, 120],
      [2, 120],
      [2, 121],
    ]);
    expect(segment!.records.length).toBe(30);
  });
});

describe('FIT decoder: realignment from the bytes (issue 16)', () => {
  const RECORDS = 40;
  /** header byte, heart rate, latitude, longitude, speed, then the timestamp last (as Strava Android writes) */
  const RECORD_BYTES = 1 + 1 + 4 + 4 + 2 + 4;
  const SPEED_AT = 1 + 1 + 4 + 4;

  function ride(): Uint8Array {
    const writer = new RawFitWriter({ bigEndian: false })
      .define(0, FILE_ID, [
        { num: 0, type: 'enum' },
        { num: 4, type: 'uint32' },
      ])
      .write(0, [4, START])
      .define(1, RECORD, [
        { num: HEART_RATE, type: 'uint8' },
        { num: 0, type: 'sint32' },
        { num: 1, type: 'sint32' },
        { num: 6, type: 'uint16' },
        { num: TIMESTAMP, type: 'uint32' },
      ]);
    for (let i = 0; i < RECORDS; i++) {
      writer.write(1, [120 + (i % 30), 565_000_000 + i * 1000, 101_000_000 + i * 700, 5000 + i, START + i]);
    }
    return writer.bytes();
  }

  /** `file` without the bytes at `offsets`, its data size and CRCs made right again: only the loss is wrong. */
  function withoutBytes(file: Uint8Array, offsets: readonly number[]): Uint8Array {
    const kept = Uint8Array.from(file.subarray(0, file.length - 2).filter((_, at) => !offsets.includes(at)));
    const bytes = new Uint8Array(kept.length + 2);
    bytes.set(kept);
    const view = new DataView(bytes.buffer);
    view.setUint32(4, kept.length - 14, true);
    view.setUint16(12, fitCrc(bytes, 0, 12), true);
    view.setUint16(kept.length, fitCrc(bytes, 0, kept.length), true);
    return bytes;
  }

  /**
   * Records that end in a uint16 below 256, written little-endian: its high byte is 0, which reads as
   * the header of local message 0. From the byte before each header the records read on consistently
   * forever, shifted by one: only their likeness to the records before the damage tells them apart.
   */
  const SHIFTY_RECORD_BYTES = 1 + 4 + 4 + 4 + 1 + 2;

  function shiftyRide(): Uint8Array {
    const writer = new RawFitWriter({ bigEndian: false }).define(0, RECORD, [
      { num: TIMESTAMP, type: 'uint32' },
      { num: 0, type: 'sint32' },
      { num: 1, type: 'sint32' },
      { num: HEART_RATE, type: 'uint8' },
      { num: 33, type: 'uint16' },
    ]);
    for (let i = 0; i < RECORDS; i++) {
      writer.write(0, [START + i, 565_000_000 + i * 1000, 101_000_000 + i * 700, 120 + (i % 30), 10 + i]);
    }
    return writer.bytes();
  }

  /** The offset of the second byte of record `index`'s latitude in shiftyRide(). */
  function shiftyLatitude(bytes: Uint8Array, index: number): number {
    return bytes.length - 2 - (RECORDS - index) * SHIFTY_RECORD_BYTES + 1 + 4 + 1;
  }

  it('resumes on the true records, not on a parse shifted by a byte that reads just as consistently', () => {
    const whole = shiftyRide();
    // Record 20 loses a byte of its latitude.
    const result = parseRideFile(withoutBytes(whole, [shiftyLatitude(whole, 20)]));
    expect(result.warnings.map((warning) => warning.code)).toEqual([RideFileWarningCode.SKIPPED_DATA]);
    const expected = parseRideFile(whole).tracks[0]!.points.filter((_, index) => index !== 20);
    expect(result.tracks[0]!.points).toEqual(expected);
  });

  it('in a damaged file, reads a record whose time jumps again where the bytes continue the records before', () => {
    // One byte too many in record 20's latitude, and a file CRC that says so: record 20 reads a byte
    // short, and from its last byte (0) the rest reads consistently but shifted, each "timestamp" decades
    // off. The jump alone is no evidence; the bytes one further on, alike to the records before, are.
    const whole = shiftyRide();
    const at = shiftyLatitude(whole, 20);
    const damaged = new Uint8Array([...whole.subarray(0, at), 0x55, ...whole.subarray(at)]);
    const view = new DataView(damaged.buffer);
    view.setUint32(4, damaged.length - 16, true);
    view.setUint16(12, fitCrc(damaged, 0, 12), true);
    const result = parseRideFile(damaged);
    expect(result.warnings.map((warning) => warning.code)).toEqual([
      RideFileWarningCode.SKIPPED_DATA,
      RideFileWarningCode.BAD_CRC,
    ]);
    const points = result.tracks[0]!.points;
    const wholePoints = parseRideFile(whole).tracks[0]!.points;
    // Record 20 itself is garbled past the extra byte; every other record is read as written.
    expect(points).toHaveLength(RECORDS);
    expect(points.slice(0, 20)).toEqual(wholePoints.slice(0, 20));
    expect(points.slice(21)).toEqual(wholePoints.slice(21));
  });

  it('drops the records that lost a byte, two in a row, and keeps every other as written', () => {
    const whole = ride();
    const firstRecord = whole.length - 2 - RECORDS * RECORD_BYTES;
    // Records 20 and 21 each lose the high byte of their speed: record 20 reads one byte into record 21,
    // and the stream reads consistently again only from record 22, past record 20's end.
    const damaged = withoutBytes(
      whole,
      [20, 21].map((index) => firstRecord + index * RECORD_BYTES + SPEED_AT + 1),
    );
    const result = parseRideFile(damaged);
    expect(result.warnings.map((warning) => warning.code)).toEqual([RideFileWarningCode.SKIPPED_DATA]);
    const expected = parseRideFile(whole).tracks[0]!.points.filter(
      (_, index) => index !== 20 && index !== 21,
    );
    expect(result.tracks[0]!.points).toEqual(expected);
  });
});
