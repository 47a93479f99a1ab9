import type { PointColumns } from '../columns.js';
import type { ClockJump } from '../model.js';
import { Clock, type Pauses } from './clock.js';
import type { CumulativeDistance } from './distance.js';

/** No record for this long means the device was not recording: never moving time. */
export const MAX_MOVING_GAP_SECONDS = 600;

export interface TimeTotals {
  /** null when no row has a time */
  elapsedSeconds: number | null;
  /** the part of the elapsed time that the file's pauses cover */
  pausedSeconds: number;
  /** null when nothing in the track says whether it moved */
  movingSeconds: number | null;
  jumps: ClockJump[];
}

/**
 * Elapsed, paused and moving time in one walk over the timed rows (whole seconds, clock.ts). Each
 * interval between two timed rows that is not paused and not longer than MAX_MOVING_GAP_SECONDS is
 * moving when the track went at least `stopSpeed` in it, judged by the first of:
 *
 * 1. the distance (unless the track covers none at all): the average speed from the last row with a distance of its own before the interval
 *    to the first one at or after its end, so that positions or distances recorded on only some rows
 *    (a run with a position on every fourth record, a pool swim's lengths) spread over the rows between;
 * 2. the speed the device recorded at the interval's end;
 * 3. pedalling: power or cadence above zero (an indoor ride without speed).
 */
export function timeTotals(
  columns: PointColumns,
  distance: CumulativeDistance,
  pauses: Pauses,
  stopSpeed: number,
): TimeTotals {
  const n = columns.length;
  const { t, s, p, c } = columns;
  const { meters, measuredAt } = distance;
  // A track that covers no way at all (a trainer, a treadmill) says by its distance nothing about riding.
  const byDistance = n > 0 && meters[n - 1]! > 0;
  const anchors = (row: number): boolean => byDistance && measuredAt(row) && !Number.isNaN(t[row]!);
  const clock = new Clock(pauses);
  let timed = false;
  let elapsed = 0;
  let paused = 0;
  let moving = 0;
  let knowsMotion = false;
  let spanStart = -1; // the last anchor row before the current one
  let spanEnd = 0; // the first anchor row at or after the current one (n: none)

  for (let i = 0; i < n; i++) {
    if (Number.isNaN(t[i]!)) continue;
    const time = Math.floor(t[i]!);
    const from = clock.latest;
    const seconds = clock.step(time);
    timed = true;
    if (seconds > 0) {
      const pausedSeconds = pauses.within(from, time);
      const running = seconds - pausedSeconds;
      elapsed += seconds;
      paused += pausedSeconds;
      if (running > 0 && seconds <= MAX_MOVING_GAP_SECONDS) {
        while (byDistance && spanEnd < n && (spanEnd < i || !anchors(spanEnd))) spanEnd++;
        let speed = NaN;
        if (byDistance && spanStart >= 0 && spanEnd < n) {
          const spanSeconds = Math.floor(t[spanEnd]!) - Math.floor(t[spanStart]!);
          if (spanSeconds > 0) speed = (meters[spanEnd]! - meters[spanStart]!) / spanSeconds;
        }
        let isMoving: boolean | null = null;
        if (!Number.isNaN(speed)) isMoving = speed >= stopSpeed;
        else if (!Number.isNaN(s[i]!)) isMoving = s[i]! >= stopSpeed;
        else if (!Number.isNaN(p[i]!) || !Number.isNaN(c[i]!)) isMoving = p[i]! > 0 || c[i]! > 0;
        if (isMoving !== null) knowsMotion = true;
        if (isMoving === true) moving += running;
      }
    }
    if (anchors(i)) spanStart = i;
  }
  if (!timed) return { elapsedSeconds: null, pausedSeconds: 0, movingSeconds: null, jumps: [] };
  return {
    elapsedSeconds: elapsed,
    pausedSeconds: paused,
    movingSeconds: knowsMotion ? moving : null,
    jumps: clock.jumps,
  };
}
