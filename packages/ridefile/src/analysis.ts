/**
 * Power and heart-rate analysis of a ride (issue 19, "The analysis riders expect"): normalized power,
 * intensity factor, training stress score, work, the power curve and the time in zones. Every one of
 * them reads the channel the same way, as one value a second (`eachSecond`), so the summary's
 * normalized power (summary.ts, shown by `rideport inspect`) and the ride page's are one function.
 *
 * How time counts ("The analysis on a ride page" in docs/riders/dashboard.md says the same):
 * - a sample holds until the next one, for at most HOLD_SECONDS (30 s); several samples in one second
 *   count as the last of them;
 * - a longer gap is a pause. Normalized power, work, averages and zones leave it out (paused time is not
 *   riding time). The power curve is over elapsed time: a window that spans a pause counts the pause as
 *   0 W, so "best 20 minutes" is 20 minutes of the clock, never two efforts joined across a café stop.
 *   (At most an hour of zeros is added per pause: more cannot change any window of the curve.)
 */
import type { TrackPoint } from './model.js';
import { PLAUSIBLE } from './summary/channels.js';
import { HOLD_SECONDS } from './summary/time.js';

/** The columns the analysis reads (PointColumns has them): Unix seconds, watts, bpm; NaN for none. */
export interface AnalysisColumns {
  length: number;
  t: ArrayLike<number>;
  p: ArrayLike<number>;
  h: ArrayLike<number>;
}

/** The columns the analysis reads, from points as the server stores them. */
export function analysisColumns(points: readonly TrackPoint[]): AnalysisColumns {
  const n = points.length;
  const t = new Float64Array(n);
  const p = new Float64Array(n);
  const h = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const point = points[i]!;
    t[i] = point.t ?? NaN;
    p[i] = point.p ?? NaN;
    h[i] = point.h ?? NaN;
  }
  return { length: n, t, p, h };
}

/** The rider's thresholds; null when not set (the values that need them are then null). */
export interface Thresholds {
  ftpWatts: number | null;
  thresholdHeartRate: number | null;
  maxHeartRate: number | null;
}

/** The time spent in one zone of a ride. */
export interface ZoneTime {
  /** 1-based */
  zone: number;
  name: string;
  /** the zone's lowest value (W or bpm), 0 for the first */
  low: number;
  /** the zone's highest value, null for the last */
  high: number | null;
  seconds: number;
}

/** One point of the power curve. */
export interface PowerCurvePoint {
  seconds: number;
  /** best average over any window of that length; null when the ride is shorter */
  watts: number | null;
}

/** What the power of a ride (or lap) says. */
export interface PowerAnalysis {
  /** seconds with a power value (pauses left out) */
  seconds: number;
  averageWatts: number;
  maxWatts: number;
  /** null under 30 s of power */
  normalizedWatts: number | null;
  /** Σ watts × seconds held, in kJ */
  workKilojoules: number;
  curve: PowerCurvePoint[];
  /** NP ÷ FTP; null without an FTP or an NP */
  intensityFactor: number | null;
  /** seconds × NP × IF ÷ (FTP × 3600) × 100; null without an FTP or an NP */
  trainingStressScore: number | null;
  /** Coggan's seven zones from the FTP; null without one */
  zones: ZoneTime[] | null;
}

/** What the heart rate of a ride (or lap) says. */
export interface HeartRateAnalysis {
  seconds: number;
  /** which threshold the five zones come from: the threshold heart rate when set, else the maximum */
  zonesFrom: 'threshold' | 'max' | null;
  zones: ZoneTime[] | null;
}

/** The analysis of a ride: null parts where the ride has no such channel with times. */
export interface RideAnalysis {
  power: PowerAnalysis | null;
  heartRate: HeartRateAnalysis | null;
}

/** Windows of the power curve: each divides the next, so a longer window's best is never above a shorter's. */
export const POWER_CURVE_SECONDS: readonly number[] = [5, 60, 300, 1200, 3600];

/** Normalized power averages 30 s windows (Coggan); shorter rides have none. */
const NORMALIZED_POWER_WINDOW_SECONDS = 30;

/** A zone table: each zone's name and its upper bound as a share of the threshold (the last has none). */
export type ZoneTable = ReadonlyArray<readonly [name: string, upTo: number]>;

/** Coggan's power zones (Training and Racing with a Power Meter), as shares of FTP. */
export const POWER_ZONES: ZoneTable = [
  ['Active recovery', 0.55],
  ['Endurance', 0.75],
  ['Tempo', 0.9],
  ['Lactate threshold', 1.05],
  ['VO2max', 1.2],
  ['Anaerobic capacity', 1.5],
  ['Neuromuscular power', Infinity],
];

/** Coggan's heart-rate zones as shares of the lactate threshold heart rate. */
export const THRESHOLD_HEART_RATE_ZONES: ZoneTable = [
  ['Active recovery', 0.68],
  ['Endurance', 0.83],
  ['Tempo', 0.94],
  ['Threshold', 1.05],
  ['VO2max', Infinity],
];

/** The common five zones as shares of the maximum heart rate (below 60 % is zone 1). */
export const MAX_HEART_RATE_ZONES: ZoneTable = [
  ['Recovery', 0.6],
  ['Endurance', 0.7],
  ['Tempo', 0.8],
  ['Threshold', 0.9],
  ['Maximum', Infinity],
];

/**
 * Walks a channel as one value a second over rows [from, to): `second(value)` for each second a value
 * holds, `pause(seconds)` for each gap longer than HOLD_SECONDS (the seconds between the two values).
 * Rows without a time, or whose value `accept` refuses, are skipped.
 */
export function eachSecond(
  columns: Pick<AnalysisColumns, 'length' | 't'>,
  values: ArrayLike<number>,
  accept: (value: number) => boolean,
  visit: { second: (value: number) => void; pause?: (seconds: number) => void },
  from = 0,
  to = columns.length,
): void {
  const { t } = columns;
  // The value of the latest second stays open: more samples in the same second replace it.
  let open = NaN;
  let previousTime = NaN;
  for (let i = from; i < to; i++) {
    const time = Math.floor(t[i]!);
    const value = values[i]!;
    if (Number.isNaN(time) || !accept(value)) continue;
    const gap = time - previousTime;
    // Several samples in one second (or a clock going back) replace rather than add seconds.
    if (gap > 0 || Number.isNaN(previousTime)) {
      if (!Number.isNaN(open)) visit.second(open);
      if (gap > 0 && gap <= HOLD_SECONDS) for (let k = 1; k < gap; k++) visit.second(open);
      else if (gap > HOLD_SECONDS) visit.pause?.(gap - 1);
    }
    open = value;
    if (!(time < previousTime)) previousTime = time;
  }
  if (!Number.isNaN(open)) visit.second(open);
}

const [LOWEST_WATTS, HIGHEST_WATTS] = PLAUSIBLE.power;
const plausiblePower = (watts: number): boolean => watts >= LOWEST_WATTS && watts <= HIGHEST_WATTS;
/** Heart rate 0 is no reading (summary/channels.ts), as above the plausible bound. */
const plausibleHeartRate = (bpm: number): boolean => bpm > 0 && bpm <= PLAUSIBLE.heartRate[1];

/**
 * Normalized power: the channel one value a second (pauses left out), its 30 s rolling average, the
 * mean of that average's fourth powers, and the fourth root of the mean. Null under 30 s of power.
 */
export function normalizedPower(
  columns: Pick<AnalysisColumns, 'length' | 't' | 'p'>,
  from = 0,
  to = columns.length,
): number | null {
  const average = new RollingFourthPowers();
  eachSecond(
    columns,
    columns.p,
    plausiblePower,
    {
      second: (watts) => {
        average.add(watts);
      },
    },
    from,
    to,
  );
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

/** Seconds per zone of `table` for values against `threshold`, and the zones' bounds in units. */
class ZoneCounter {
  readonly #limits: number[];
  readonly seconds: number[];

  constructor(
    readonly table: ZoneTable,
    readonly threshold: number,
  ) {
    this.#limits = table.map(([, upTo]) => upTo * threshold);
    this.seconds = table.map(() => 0);
  }

  add(value: number): void {
    let zone = 0;
    while (value > this.#limits[zone]!) zone++;
    this.seconds[zone]! += 1;
  }

  zones(): ZoneTime[] {
    return this.table.map(([name], index) => {
      const high = this.#limits[index]!;
      const below = index === 0 ? -1 : this.#limits[index - 1]!;
      return {
        zone: index + 1,
        name,
        // Values are whole watts or beats in practice: a zone starts at the first whole value above the last.
        low: index === 0 ? 0 : Math.floor(below) + 1,
        high: Number.isFinite(high) ? Math.floor(high) : null,
        seconds: this.seconds[index]!,
      };
    });
  }
}

/** The highest average of any `window` consecutive seconds of `series`, or null when it is shorter. */
function bestAverage(series: Float64Array, length: number, window: number): number | null {
  if (length < window) return null;
  let sum = 0;
  for (let i = 0; i < window; i++) sum += series[i]!;
  let best = sum;
  for (let i = window; i < length; i++) {
    sum += series[i]! - series[i - window]!;
    if (sum > best) best = sum;
  }
  // A running sum can drift by rounding; the average of values cannot leave their range.
  return Math.max(0, best / window);
}

/**
 * The highest plausible power sample with a time in rows [from, to): the ride's maximum, as the track
 * summary's (summary/channels.ts). A second with several samples counts its last one in the averages
 * and the curve (eachSecond), yet a higher sample before it in that second was still reached. It stops
 * at the first sample above `enough` (to ask whether there is any power at all).
 */
function highestSample(columns: AnalysisColumns, from: number, to: number, enough = Infinity): number {
  const { t, p } = columns;
  let highest = -Infinity;
  for (let i = from; i < to && highest <= enough; i++) {
    const watts = p[i]!;
    if (!Number.isNaN(t[i]!) && plausiblePower(watts) && watts > highest) highest = watts;
  }
  return highest;
}

/** A growable per-second series. */
class SecondSeries {
  values = new Float64Array(4096);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

function powerAnalysis(
  columns: AnalysisColumns,
  thresholds: Thresholds,
  from: number,
  to: number,
): PowerAnalysis | null {
  // A ride whose power is nothing but zeros has no power (issue 40), as in the summary
  // (summary/channels.ts): no NP, TSS or zones from a meter that was paired but silent. The whole
  // ride's channel decides, so a lap coasted at 0 W in a ride with power still reads 0 W.
  if (!(highestSample(columns, 0, columns.length, 0) > 0)) return null;
  const ftp = thresholds.ftpWatts !== null && thresholds.ftpWatts > 0 ? thresholds.ftpWatts : null;
  const elapsed = new SecondSeries();
  const zones = ftp === null ? null : new ZoneCounter(POWER_ZONES, ftp);
  let seconds = 0;
  let sum = 0;
  const largestWindow = POWER_CURVE_SECONDS[POWER_CURVE_SECONDS.length - 1]!;
  eachSecond(
    columns,
    columns.p,
    plausiblePower,
    {
      second: (watts) => {
        seconds += 1;
        sum += watts;
        zones?.add(watts);
        elapsed.push(watts);
      },
      pause: (paused) => {
        for (let k = Math.min(paused, largestWindow); k > 0; k--) elapsed.push(0);
      },
    },
    from,
    to,
  );
  if (seconds === 0) return null;
  const max = highestSample(columns, from, to);
  const normalized = normalizedPower(columns, from, to);
  const intensity = ftp === null || normalized === null ? null : normalized / ftp;
  return {
    seconds,
    averageWatts: Math.min(max, sum / seconds),
    maxWatts: max,
    normalizedWatts: normalized,
    workKilojoules: sum / 1000,
    curve: POWER_CURVE_SECONDS.map((window) => ({
      seconds: window,
      watts: bestAverage(elapsed.values, elapsed.length, window),
    })),
    intensityFactor: intensity,
    trainingStressScore:
      intensity === null || ftp === null || normalized === null
        ? null
        : ((seconds * normalized * intensity) / (ftp * 3600)) * 100,
    zones: zones?.zones() ?? null,
  };
}

function heartRateAnalysis(
  columns: AnalysisColumns,
  thresholds: Thresholds,
  from: number,
  to: number,
): HeartRateAnalysis | null {
  const { thresholdHeartRate, maxHeartRate } = thresholds;
  const zonesFrom =
    thresholdHeartRate !== null && thresholdHeartRate > 0
      ? 'threshold'
      : maxHeartRate !== null && maxHeartRate > 0
        ? 'max'
        : null;
  const zones =
    zonesFrom === 'threshold'
      ? new ZoneCounter(THRESHOLD_HEART_RATE_ZONES, thresholdHeartRate!)
      : zonesFrom === 'max'
        ? new ZoneCounter(MAX_HEART_RATE_ZONES, maxHeartRate!)
        : null;
  let seconds = 0;
  eachSecond(
    columns,
    columns.h,
    plausibleHeartRate,
    {
      second: (bpm) => {
        seconds += 1;
        zones?.add(bpm);
      },
    },
    from,
    to,
  );
  if (seconds === 0) return null;
  return { seconds, zonesFrom, zones: zones?.zones() ?? null };
}

/** The analysis of rows [from, to) of a ride (a lap's rows, or all of them). */
export function analyseRide(
  columns: AnalysisColumns,
  thresholds: Thresholds,
  from = 0,
  to = columns.length,
): RideAnalysis {
  return {
    power: powerAnalysis(columns, thresholds, from, to),
    heartRate: heartRateAnalysis(columns, thresholds, from, to),
  };
}
