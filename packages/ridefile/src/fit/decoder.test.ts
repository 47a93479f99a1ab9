import { describe, expect, it } from 'vitest';
import { RawFitWriter } from '../../../../fixtures/fit/generate.js';
import { parseRideFile } from '../parse.js';
import { definitionHash } from './decoder.js';

const RECORD = 20;
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
