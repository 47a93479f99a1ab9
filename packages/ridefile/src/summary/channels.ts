import type { Column, PointColumns } from '../columns.js';
import type { Stat } from '../model.js';

/**
 * Minimum, average and maximum of a channel (heart rate, cadence, power, temperature). The average is
 * over time, as devices compute their own (a Garmin adds the current value every second): each value
 * counts for the seconds it holds (TimeTotals.holdSeconds). A track without usable times averages its
 * samples.
 */

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
  Record<'power' | 'heartRate' | 'cadence' | 'temperature' | 'elevation', readonly [number, number]>
> = {
  power: [0, 3000],
  heartRate: [0, 250],
  cadence: [0, 300],
  temperature: [-90, 70],
  // Below the Dead Sea's shore (-430 m) to above Everest (8,849 m): a GPS glitch's -9,999 is no reading.
  elevation: [-500, 9000],
};

/** One channel to summarise: its values, how its zeros count, and the values it can hold. */
export interface ChannelSpec {
  values: Column;
  zeros: Zeros;
  /**
   * The values it can hold. A channel whose every value is the lowest it can hold is no channel (issue
   * 40): for power, cadence and heart rate that is 0, which a sensor paired but silent writes all ride,
   * and counting it as power would show NP 0 W and put the ride among the rider's rides with power.
   * Temperature and elevation hold 0 inside their range (0 °C, sea level): there it is a reading.
   */
  bounds: readonly [number, number];
}

/** Temperature as the summary takes it: every value counts, zeros too. */
export function temperatureSpec(columns: PointColumns): ChannelSpec {
  return { values: columns.T, zeros: 'keep', bounds: PLAUSIBLE.temperature };
}

/**
 * The stats of several channels, each one plain loop: the seconds each row's values hold are the
 * same for every channel and come with the time totals (TimeTotals.holdSeconds).
 */
export function channelStats(
  columns: PointColumns,
  specs: readonly ChannelSpec[],
  holdSeconds: Float32Array | null,
): Array<Stat | null> {
  return specs.map((spec) => stat(spec, columns.length, holdSeconds));
}

function stat({ values, zeros, bounds }: ChannelSpec, n: number, weights: Float32Array | null): Stat | null {
  const [lowest, highest] = bounds;
  const skip = zeros === 'skip';
  const skipInAverage = zeros === 'skip-in-average';
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (!(value >= lowest && value <= highest) || (skip && value === 0)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    if (skipInAverage && value === 0) continue;
    const weight = weights === null ? 1 : weights[i]!;
    sum += value * weight;
    total += weight;
  }
  if (min === Infinity || max === lowest) return null;
  // Every value a zero left out of the average, or held no time at all: the average says so.
  const avg = total > 0 ? sum / total : skipInAverage ? 0 : min;
  // Rounding of the weighted sums cannot take the average past the values it averages.
  return { min, avg: Math.min(max, Math.max(min, avg)), max };
}
