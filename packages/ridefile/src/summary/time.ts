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
  /**
   * The seconds each row's values hold, for averages over time (summary/channels.ts): until the next
   * timed row of a later second, at most HOLD_SECONDS, paused time left out, shared evenly by the rows
   * of one second; the last second counts once. Null when no row holds any time (untimed, or every row
   * in one second): values are then averaged as samples.
   */
  holdSeconds: Float32Array | null;
}

/** A value holds until the next for at most this long; a longer gap is a pause, not riding time. */
export const HOLD_SECONDS = 30;

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
  const { meters, measured, spikeRows } = distance;
  // A track that covers no way at all (a trainer, a treadmill) says by its distance nothing about riding.
  const byDistance = n > 0 && meters[n - 1]! > 0;
  const checkSpikes = spikeRows.size > 0;
  const hasPauses = pauses.count > 0;
  const clock = new Clock(pauses);
  const hold = new Float32Array(n);
  let holds = false;
  let groupStart = -1; // the first timed row of the current second
  let groupRows = 0;
  let timed = false;
  let elapsed = 0;
  let paused = 0;
  let moving = 0;
  let knowsMotion = false;
  // The distance spans run between anchor rows: timed, with a distance of their own (ownDistance,
  // written out here: this loop runs for every row of every track).
  let spanStart = -1; // the last anchor row before the current one
  let spanEnd = 0; // the first anchor row at or after the current one (n: none)

  for (let i = 0; i < n; i++) {
    const raw = t[i]!;
    if (Number.isNaN(raw)) continue;
    const time = Math.floor(raw);
    const from = clock.latest;
    const seconds = clock.step(time);
    timed = true;
    const pausedSeconds = seconds > 0 && hasPauses ? pauses.within(from, time) : 0;
    const running = seconds - pausedSeconds;
    if (groupStart < 0 || time !== from) {
      // The rows of the second that ended share the seconds it held.
      const held = Math.min(HOLD_SECONDS, running);
      if (groupRows > 0 && held > 0) {
        holds = true;
        if (groupRows === 1) hold[groupStart] = held;
        else shareHold(hold, t, groupStart, i, held / groupRows);
      }
      groupStart = i;
      groupRows = 0;
    }
    groupRows += 1;
    const anchor = byDistance && !Number.isNaN(measured[i]!) && !(checkSpikes && spikeRows.has(i));
    if (seconds > 0) {
      elapsed += seconds;
      paused += pausedSeconds;
      if (running > 0 && seconds <= MAX_MOVING_GAP_SECONDS) {
        // 1 moving, 0 not, -1 nothing says
        let motion = -1;
        if (byDistance) {
          if (spanEnd < i) spanEnd = i;
          while (
            spanEnd < n &&
            (Number.isNaN(t[spanEnd]!) ||
              Number.isNaN(measured[spanEnd]!) ||
              (checkSpikes && spikeRows.has(spanEnd)))
          ) {
            spanEnd++;
          }
          if (spanStart >= 0 && spanEnd < n) {
            const spanSeconds = Math.floor(t[spanEnd]!) - Math.floor(t[spanStart]!);
            if (spanSeconds > 0)
              motion = (meters[spanEnd]! - meters[spanStart]!) / spanSeconds >= stopSpeed ? 1 : 0;
          }
        }
        if (motion < 0) {
          const speed = s[i]!;
          if (!Number.isNaN(speed)) motion = speed >= stopSpeed ? 1 : 0;
          else {
            const power = p[i]!;
            const cadence = c[i]!;
            if (!Number.isNaN(power) || !Number.isNaN(cadence)) motion = power > 0 || cadence > 0 ? 1 : 0;
          }
        }
        if (motion >= 0) knowsMotion = true;
        if (motion === 1) moving += running;
      }
    }
    if (anchor) spanStart = i;
  }
  if (!timed)
    return { elapsedSeconds: null, pausedSeconds: 0, movingSeconds: null, jumps: [], holdSeconds: null };
  if (groupRows > 0) {
    holds = true;
    if (groupRows === 1) hold[groupStart] = 1;
    else shareHold(hold, t, groupStart, n, 1 / groupRows);
  }
  return {
    elapsedSeconds: elapsed,
    pausedSeconds: paused,
    movingSeconds: knowsMotion ? moving : null,
    jumps: clock.jumps,
    holdSeconds: holds ? hold : null,
  };
}

/** The timed rows of one second, from `from` to `to`, each hold `share` seconds. */
function shareHold(hold: Float32Array, t: Float64Array, from: number, to: number, share: number): void {
  for (let row = from; row < to; row++) if (!Number.isNaN(t[row]!)) hold[row] = share;
}
