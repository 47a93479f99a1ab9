import type { RecordedTotals } from '../model.js';

/** Below this much computed climbing, a file's total ascent of zero is believed. */
const TRUSTED_ZERO_ASCENT_METERS = 20;

/**
 * The file's own totals win, as for distance: devices compute them from their full-rate barometer with
 * their own filters, and riders compare with what their device showed. Vendors disagree with each
 * other by up to 50 % on the same terrain (Wahoo counts far less than Garmin), so no single method
 * reproduces all of them. A stated zero is believed only when the points hardly climb (some devices,
 * e.g. TomTom, write 0 whatever the terrain).
 */
export function elevationSummary(
  computed: { gain: number; loss: number } | null,
  recorded: RecordedTotals | null,
): { gain: number | null; loss: number | null; source: 'file' | 'points' | null } {
  const fileGain = recorded?.ascentMeters ?? null;
  const fileLoss = recorded?.descentMeters ?? null;
  const trusted = fileGain !== null && (fileGain > 0 || (computed?.gain ?? 0) < TRUSTED_ZERO_ASCENT_METERS);
  if (trusted) return { gain: fileGain, loss: fileLoss ?? computed?.loss ?? null, source: 'file' };
  if (computed === null) return { gain: null, loss: null, source: null };
  return { gain: computed.gain, loss: computed.loss, source: 'points' };
}

/**
 * Elevation gain and loss, computed from the points:
 *
 * 1. The elevation is sampled once per ELEVATION_SAMPLE_METERS of distance travelled (every sample
 *    when the track has no distance), so barometric drift while standing still adds nothing.
 * 2. Hysteresis: a climb or descent is counted once the elevation has turned back from its extreme by
 *    more than ELEVATION_HYSTERESIS_METERS, and then counted whole (extreme minus the previous turning
 *    point). Oscillations smaller than the threshold (sensor and GPS noise) add nothing, while a long
 *    climb made of many small steps adds up exactly.
 *
 * A change faster than MAX_VERTICAL_METERS + MAX_VERTICAL_SPEED × Δt is not terrain but a broken
 * sample or a re-acquired altitude (a device writing 0 → -500 m before its first fix, a spike of
 * 12,000 m): the climb so far is kept, and counting restarts from the new value.
 */
export const ELEVATION_HYSTERESIS_METERS = 2;
export const ELEVATION_SAMPLE_METERS = 10;
const MAX_VERTICAL_METERS = 10;
const MAX_VERTICAL_METERS_PER_SECOND = 5;

export function elevationGainLoss(
  e: Float64Array,
  t: Float64Array,
  distance: Float64Array,
  n: number,
  threshold = ELEVATION_HYSTERESIS_METERS,
): { gain: number; loss: number } | null {
  const byDistance = n > 0 && distance[n - 1]! > 0;
  let sampledAt = -Infinity;
  let gain = 0;
  let loss = 0;
  let direction = 0; // 1 climbing, -1 descending, 0 not yet known
  let turn = NaN; // the elevation of the last turning point
  let extreme = NaN; // the highest (climbing) or lowest (descending) elevation since `turn`
  let low = NaN;
  let high = NaN;
  let previous = NaN;
  let previousTime = NaN;
  let any = false;
  for (let i = 0; i < n; i++) {
    const value = e[i]!;
    if (Number.isNaN(value)) continue;
    any = true;
    if (byDistance) {
      if (distance[i]! - sampledAt < ELEVATION_SAMPLE_METERS) continue;
      sampledAt = distance[i]!;
    }
    const time = t[i]!;
    const dt =
      Number.isNaN(time) || Number.isNaN(previousTime) ? 1 : Math.max(1, Math.abs(time - previousTime));
    if (
      !Number.isNaN(previous) &&
      Math.abs(value - previous) > MAX_VERTICAL_METERS + MAX_VERTICAL_METERS_PER_SECOND * dt
    ) {
      if (direction === 1) gain += extreme - turn;
      else if (direction === -1) loss += turn - extreme;
      direction = 0;
      low = high = NaN;
    }
    previous = value;
    if (!Number.isNaN(time)) previousTime = time;
    if (direction === 0) {
      if (Number.isNaN(low)) low = high = value;
      if (value < low) low = value;
      if (value > high) high = value;
      if (value - low > threshold) {
        direction = 1;
        turn = low;
        extreme = value;
      } else if (high - value > threshold) {
        direction = -1;
        turn = high;
        extreme = value;
      }
    } else if (direction === 1) {
      if (value > extreme) extreme = value;
      else if (extreme - value > threshold) {
        gain += extreme - turn;
        turn = extreme;
        extreme = value;
        direction = -1;
      }
    } else {
      if (value < extreme) extreme = value;
      else if (value - extreme > threshold) {
        loss += turn - extreme;
        turn = extreme;
        extreme = value;
        direction = 1;
      }
    }
  }
  if (!any) return null;
  if (direction === 1) gain += extreme - turn;
  else if (direction === -1) loss += turn - extreme;
  return { gain, loss };
}
