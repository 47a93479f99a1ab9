/**
 * What the tests of the XML readers (xml/gpx.test.ts, tcx.test.ts, kml.test.ts) share; each had its own
 * copy (issue 35). Every output point keeps the invariants of docs/contributors/architecture.md
 * (`TrackPoint`), on good files, on cut or corrupted bytes, and on the real-world corpus.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { ReaderResult, TrackDraft } from '../draft.js';
import { RideFileError, RideFileErrorCode } from '../errors.js';
import type { Track } from '../model.js';
import { finishTrack } from '../track.js';

/** A reader with its options given: bytes in, drafts out. */
export type ReadXml = (bytes: Uint8Array) => ReaderResult;

/**
 * Whether the format can say that a wheel sensor measured speed and distance: TCX can, on the rows it
 * marks; GPX and KML never, so no point of theirs has `s` or `d`.
 */
export interface WheelRule {
  wheelRows: boolean;
}

export function finish(result: ReaderResult): Track[] {
  return result.drafts.map((draft) => finishTrack(draft));
}

/**
 * A file read twice: the drafts as read, and the tracks finished from a read of their own (finishing a
 * draft makes its rows the output's, finishRows).
 */
export function readAndFinish(read: ReadXml, bytes: Uint8Array): { result: ReaderResult; tracks: Track[] } {
  return { result: read(bytes), tracks: finish(read(bytes)) };
}

export function utcSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

/** Values of one column over a draft's rows (NaN where absent); none without a draft. */
export function column(draft: TrackDraft | undefined, key: 's' | 'd'): number[] {
  if (draft === undefined) return [];
  return Array.from(draft.columns[key].subarray(0, draft.columns.length));
}

/** How many of a draft's rows a wheel sensor measured. */
export function wheelRows(draft: TrackDraft | undefined): number {
  if (draft === undefined) return 0;
  return draft.columns.wheel.subarray(0, draft.columns.length).reduce((sum, flag) => sum + flag, 0);
}

/** Invariants on every output point: `s` and `d` only on wheel rows, where the format has them. */
export function assertInvariants(draft: TrackDraft, track: Track, { wheelRows: wheel }: WheelRule): void {
  // A row whose only values are a recorded speed or distance (no wheel sensor) makes no point.
  expect(track.points.length).toBeLessThanOrEqual(draft.columns.length);
  const problems = track.points.flatMap((point, index) => {
    const found: string[] = [];
    if (Object.keys(point).length === 0) found.push('empty');
    if (point.t !== undefined && !Number.isInteger(point.t)) found.push('t not whole seconds');
    if ((point.x === undefined) !== (point.y === undefined)) found.push('half a position');
    if (point.x !== undefined && !(Math.abs(point.x) <= 180)) found.push('x out of range');
    if (point.y !== undefined && !(Math.abs(point.y) <= 90)) found.push('y out of range');
    if (point.s !== undefined || point.d !== undefined) {
      if (!wheel) found.push('s/d without a wheel sensor');
      else if (draft.columns.wheel[index] !== 1) found.push('s/d on a row without a wheel sensor');
    }
    return found.map((problem) => `point ${index}: ${problem}`);
  });
  expect(problems).toEqual([]);
  if (wheel) expect(track.sensors.wheelSensor).toBe(wheelRows(draft) > 0);
}

/** `read` throws a RideFileError TOO_LARGE (past maxPoints). */
export function assertTooLarge(read: () => unknown): void {
  let thrown: unknown = null;
  try {
    read();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RideFileError);
  expect((thrown as RideFileError).code).toBe(RideFileErrorCode.TOO_LARGE);
}

/** `read` never throws on `original` cut short and with bytes changed, and keeps the invariants (property). */
export function assertNeverThrowsOnDamage(read: ReadXml, original: Uint8Array, rule: WheelRule): void {
  fc.assert(
    fc.property(
      fc.nat({ max: original.length }),
      fc.array(fc.tuple(fc.nat({ max: original.length - 1 }), fc.integer({ min: 0, max: 255 })), {
        maxLength: 8,
      }),
      (cut, changes) => {
        const bytes = original.slice(0, cut);
        for (const [at, value] of changes) if (at < bytes.length) bytes[at] = value;
        const result = read(bytes);
        for (const draft of result.drafts) assertInvariants(draft, finishTrack(draft), rule);
      },
    ),
    { numRuns: 300 },
  );
}

/** `read` of a real-world file throws nothing but a RideFileError, and its tracks keep the invariants. */
export function assertReadsOrRefuses(read: ReadXml, bytes: Uint8Array, rule: WheelRule): void {
  let result: ReaderResult;
  try {
    result = read(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(RideFileError);
    return;
  }
  for (const draft of result.drafts) assertInvariants(draft, finishTrack(draft), rule);
}
