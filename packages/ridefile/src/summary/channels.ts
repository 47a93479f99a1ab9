import type { Column, PointColumns } from '../columns.js';
import type { Stat } from '../model.js';
import { Clock, type Pauses } from './clock.js';

/**
 * Minimum, average and maximum of a channel (heart rate, cadence, power, temperature). The average is
 * over time, as devices compute their own (a Garmin adds the current value every second): each value
 * counts for the seconds until the next timed row (shared by the rows of one second), at most
 * HOLD_SECONDS, paused time left out; the last second counts once. A track without usable times
 * averages its samples.
 */
export const HOLD_SECONDS = 30;

/**
 * How a stat treats zeros: `keep` them as any value (power, temperature); `skip` them as no reading
 * (heart rate); `skip-in-average`: a real value left out of the average only (cadence: coasting, as
 * Strava shows it).
 */
export type Zeros = 'keep' | 'skip' | 'skip-in-average';

/**
 * Values no rider's body or air produces are no reading (a power meter glitching to 21,733 W): left out
 * of the summary, never out of the points. The bounds lie well beyond every record: the highest
 * sprint powers measured are about 2,600 W, heart rates above 250 bpm do not occur, pedalling and
 * running cadences stay below 250 rpm, and air temperatures between -90 and 60 °C.
 */
export const PLAUSIBLE: Readonly<
  Record<'power' | 'heartRate' | 'cadence' | 'temperature', readonly [number, number]>
> = {
  power: [0, 3000],
  heartRate: [0, 250],
  cadence: [0, 300],
  temperature: [-90, 70],
};

export function channelStat(
  columns: PointColumns,
  values: Column,
  zeros: Zeros,
  pauses: Pauses,
  [lowest, highest]: readonly [number, number] = [-Infinity, Infinity],
): Stat | null {
  const n = columns.length;
  const { t } = columns;
  let min = Infinity;
  let max = -Infinity;
  let sampleSum = 0;
  let sampleCount = 0;
  let weightedSum = 0;
  let weight = 0;
  // The values of the current second, waiting for the seconds they hold.
  let groupSum = 0;
  let groupCount = 0;
  const clock = new Clock(pauses);

  const closeGroup = (seconds: number): void => {
    if (groupCount > 0 && seconds > 0) {
      weightedSum += (groupSum / groupCount) * seconds;
      weight += seconds;
    }
    groupSum = 0;
    groupCount = 0;
  };

  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    const time = t[i]!;
    if (!Number.isNaN(time)) {
      const from = clock.latest;
      const seconds = clock.step(Math.floor(time));
      if (seconds > 0) closeGroup(Math.min(HOLD_SECONDS, seconds - pauses.within(from, from + seconds)));
    }
    if (!(value >= lowest && value <= highest) || (zeros === 'skip' && value === 0)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    if (zeros === 'skip-in-average' && value === 0) continue;
    sampleSum += value;
    sampleCount += 1;
    if (!Number.isNaN(time)) {
      groupSum += value;
      groupCount += 1;
    }
  }
  closeGroup(1);
  if (min === Infinity) return null;
  let avg: number;
  if (weight > 0) avg = weightedSum / weight;
  else if (sampleCount > 0) avg = sampleSum / sampleCount;
  else avg = 0; // every value was a zero left out of the average
  // Rounding of the weighted sums cannot take the average past the values it averages.
  return { min, avg: Math.min(max, Math.max(min, avg)), max };
}

/** Normalized power needs a 30 s rolling average (Coggan); shorter rides have none. */
const NORMALIZED_POWER_WINDOW_SECONDS = 30;

/**
 * Normalized power: power as one value a second (each sample held until the next, for at most
 * HOLD_SECONDS; longer gaps are pauses and left out, as paused time is not riding time), a 30 s rolling
 * average, the mean of its fourth powers, and the fourth root of that. Null when there are fewer than
 * 30 s of power.
 */
export function normalizedPower(columns: PointColumns): number | null {
  const { t, p } = columns;
  const [lowest, highest] = PLAUSIBLE.power;
  const average = new RollingFourthPowers();
  // The value of the latest second stays open: more samples in the same second replace it.
  let open = NaN;
  let previousTime = NaN;
  for (let i = 0; i < columns.length; i++) {
    const time = Math.floor(t[i]!);
    const power = p[i]!;
    if (Number.isNaN(time) || !(power >= lowest && power <= highest)) continue;
    const gap = time - previousTime;
    // Several samples in one second (or a clock going back) replace rather than add seconds.
    if (gap > 0 || Number.isNaN(previousTime)) {
      if (!Number.isNaN(open)) average.add(open);
      if (gap > 0 && gap <= HOLD_SECONDS) for (let k = 1; k < gap; k++) average.add(open);
    }
    open = power;
    if (!(time < previousTime)) previousTime = time;
  }
  if (!Number.isNaN(open)) average.add(open);
  return average.count === 0 ? null : (average.sumOfFourthPowers / average.count) ** 0.25;
}

/**
 * The 30 s rolling average of a per-second series and the sum of its fourth powers, kept as the values
 * arrive: a ring of the last 30 seconds instead of the whole series, however long the ride.
 */
class RollingFourthPowers {
  readonly #window = new Float64Array(NORMALIZED_POWER_WINDOW_SECONDS);
  #seconds = 0;
  #windowSum = 0;
  sumOfFourthPowers = 0;
  /** rolling averages so far (one per second from the 30th on) */
  count = 0;

  add(watts: number): void {
    const slot = this.#seconds % NORMALIZED_POWER_WINDOW_SECONDS;
    this.#windowSum += watts;
    if (this.#seconds >= NORMALIZED_POWER_WINDOW_SECONDS) this.#windowSum -= this.#window[slot]!;
    this.#window[slot] = watts;
    this.#seconds += 1;
    if (this.#seconds >= NORMALIZED_POWER_WINDOW_SECONDS) {
      // Two multiplications rather than `** 4`, a call to pow for every second of the ride.
      const mean = this.#windowSum / NORMALIZED_POWER_WINDOW_SECONDS;
      const squared = mean * mean;
      this.sumOfFourthPowers += squared * squared;
      this.count += 1;
    }
  }
}
