import { describe, expect, it } from 'vitest';
import { RawFitWriter } from '../../../../fixtures/fit/generate.js';
import { readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_MAX_POINTS } from '../columns.js';
import { parseRideFile } from '../parse.js';
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
