import type { Column, PointColumns } from './columns.js';
import { haversineMeters } from './geo.js';
import type { Bounds, Position, RecordedTotals, Stat, Summary, Terrain, TrackType } from './model.js';

/**
 * Summaries per track (issue 2). Every method is documented here because server records
 * (`distance`, `elevation_gain`, `moving_time`, …) are these values.
 */

/** An interval counts as moving when the rider covers at least this much per second (1.8 km/h). */
export const MOVING_SPEED_METERS_PER_SECOND = 0.5;
/** Gaps longer than this are never moving time (the device was paused or switched off). */
export const MAX_MOVING_GAP_SECONDS = 600;
/** Speeds derived from positions are measured over at least this long, so GPS jitter makes no spikes. */
const DERIVED_SPEED_WINDOW_SECONDS = 5;

export interface SummaryContext {
  recorded: RecordedTotals | null;
  calories: number | null;
  device: string | null;
}

export function summarize(columns: PointColumns, context: SummaryContext): Summary {
  const n = columns.length;
  const cumulative = cumulativeDistance(columns);
  const positions = positionSummary(columns);
  const elevation = elevationSummary(
    elevationGainLoss(columns.e, columns.t, cumulative.meters, n),
    context.recorded,
  );
  const { elapsedSeconds, movingSeconds } = timeSummary(columns, cumulative.meters);
  const { distanceMeters, distanceSource } = distanceSummary(cumulative, n, context.recorded);

  return {
    pointCount: n,
    distanceMeters,
    distanceSource,
    elapsedSeconds,
    movingSeconds,
    elevationGainMeters: elevation.gain,
    elevationLossMeters: elevation.loss,
    elevationSource: elevation.source,
    speedMetersPerSecond: speedStat(columns, cumulative.meters, distanceMeters, movingSeconds),
    heartRateBpm: stat(columns.h, n, SKIP_ZERO),
    cadenceRpm: stat(columns.c, n, SKIP_ZERO_IN_AVERAGE),
    powerWatts: powerStat(columns),
    temperatureCelsius: stat(columns.T, n, KEEP_ZERO),
    calories: context.calories,
    device: context.device,
    bounds: positions.bounds,
    firstPosition: positions.first,
    lastPosition: positions.last,
    trackType: trackType(columns, distanceMeters),
    terrain: terrain(elevation.gain, distanceMeters),
    recorded: context.recorded,
  };
}

/** Below this distance along the points, a file's total distance of zero is believed (indoor, stationary). */
const TRUSTED_ZERO_DISTANCE_METERS = 100;

/**
 * The track's distance: the total the file states (FIT session, TCX laps) when there is one, as the
 * device showed it; else the points' own distance (recorded per point, or along the positions). A
 * stated zero is believed only when the points hardly move.
 */
function distanceSummary(
  cumulative: CumulativeDistance,
  n: number,
  recorded: RecordedTotals | null,
): { distanceMeters: number | null; distanceSource: Summary['distanceSource'] } {
  const alongPoints = cumulative.source === null ? null : cumulative.meters[n - 1]!;
  const stated = recorded?.distanceMeters ?? null;
  if (stated !== null && (stated > 0 || (alongPoints ?? 0) < TRUSTED_ZERO_DISTANCE_METERS)) {
    return { distanceMeters: stated, distanceSource: 'file' };
  }
  return { distanceMeters: alongPoints, distanceSource: cumulative.source };
}

export interface CumulativeDistance {
  /** distance from the start at each row, m */
  meters: Float64Array;
  source: 'points' | 'positions' | null;
}

/**
 * The file's own distance when it records one (any row with `d`): its first value plus every increase,
 * so a counter that restarts (a new lap or activity) still adds up; else the haversine length of the
 * positions.
 */
export function cumulativeDistance(columns: PointColumns): CumulativeDistance {
  const n = columns.length;
  const { d, x, y } = columns;
  let firstDistance = 0;
  while (firstDistance < n && Number.isNaN(d[firstDistance]!)) firstDistance++;
  if (firstDistance < n) return { meters: fileDistance(d, n, firstDistance), source: 'points' };

  const meters = new Float64Array(n);
  let running = 0;
  let lastLat = NaN;
  let lastLon = NaN;
  let any = false;
  for (let i = 0; i < n; i++) {
    const lat = y[i]!;
    const lon = x[i]!;
    if (!Number.isNaN(lat) && !Number.isNaN(lon)) {
      if (any) running += haversineMeters(lastLat, lastLon, lat, lon);
      lastLat = lat;
      lastLon = lon;
      any = true;
    }
    meters[i] = running;
  }
  return { meters, source: any ? 'positions' : null };
}

/**
 * The recorded distance `d` made cumulative: each value plus the drops of the counter before it, zero
 * before the first value and the last total across rows without one. A column that already is
 * cumulative (a value on every row, from zero up, never dropping: nearly every recording) is returned
 * itself, read-only, so a long ride's summary allocates no array as long as its columns (issue 2, peak
 * memory).
 */
function fileDistance(d: Float64Array, n: number, firstDistance: number): Float64Array {
  if (firstDistance === 0 && isCumulative(d, n)) return d;
  const meters = new Float64Array(n);
  // cumulative = value + offset; the offset grows by each drop, so the total never goes back.
  let offset = Math.max(0, d[firstDistance]!) - d[firstDistance]!;
  let previous = d[firstDistance]!;
  let running = 0;
  for (let i = firstDistance; i < n; i++) {
    const value = d[i]!;
    if (!Number.isNaN(value)) {
      if (value < previous) offset += previous - value;
      previous = value;
      running = value + offset;
    }
    meters[i] = running;
  }
  return meters;
}

function isCumulative(d: Float64Array, n: number): boolean {
  if (!(d[0]! >= 0)) return false;
  for (let i = 1; i < n; i++) if (!(d[i]! >= d[i - 1]!)) return false;
  return true;
}

/**
 * Elapsed time is last minus first timestamp. Moving time adds up the intervals between consecutive
 * timed rows in which the rider moved at least MOVING_SPEED_METERS_PER_SECOND (judged from the
 * distance, else the recorded speed, else pedalling: power or cadence above zero), skipping gaps longer
 * than MAX_MOVING_GAP_SECONDS. Null when nothing in the track says whether the rider moved.
 */
function timeSummary(
  columns: PointColumns,
  cumulative: Float64Array,
): { elapsedSeconds: number | null; movingSeconds: number | null } {
  const { t, s, p, c } = columns;
  const hasDistance = columns.length > 0 && cumulative[columns.length - 1]! > 0;
  let first = NaN;
  let previousIndex = -1;
  let last = NaN;
  let moving = 0;
  let knowsMotion = false;
  for (let i = 0; i < columns.length; i++) {
    const time = t[i]!;
    if (Number.isNaN(time)) continue;
    if (Number.isNaN(first)) first = time;
    if (previousIndex >= 0) {
      const dt = time - t[previousIndex]!;
      if (dt > 0 && dt <= MAX_MOVING_GAP_SECONDS) {
        let isMoving: boolean | null = null;
        if (hasDistance) {
          isMoving = (cumulative[i]! - cumulative[previousIndex]!) / dt >= MOVING_SPEED_METERS_PER_SECOND;
        } else if (!Number.isNaN(s[i]!)) {
          isMoving = s[i]! >= MOVING_SPEED_METERS_PER_SECOND;
        } else if (!Number.isNaN(p[i]!) || !Number.isNaN(c[i]!)) {
          isMoving = p[i]! > 0 || c[i]! > 0;
        }
        if (isMoving !== null) knowsMotion = true;
        if (isMoving === true) moving += dt;
      }
    }
    if (!(time < last)) last = time;
    previousIndex = i;
  }
  if (Number.isNaN(first)) return { elapsedSeconds: null, movingSeconds: null };
  return { elapsedSeconds: last - first, movingSeconds: knowsMotion ? moving : null };
}

/** Below this much computed climbing, a file's total ascent of zero is believed. */
const TRUSTED_ZERO_ASCENT_METERS = 20;

/**
 * The file's own totals win, as for distance: devices compute them from their full-rate barometer with
 * their own filters, and riders compare with what their device showed. Vendors disagree with each
 * other by up to 50 % on the same terrain (Wahoo counts far less than Garmin), so no single method
 * reproduces all of them. A stated zero is believed only when the points hardly climb (some devices,
 * e.g. TomTom, write 0 whatever the terrain).
 */
function elevationSummary(
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

/** How `stat` treats zeros: a heart rate of 0 is no reading; a cadence of 0 (coasting) is no pedalling. */
const KEEP_ZERO = 0;
const SKIP_ZERO = 1;
const SKIP_ZERO_IN_AVERAGE = 2;

function stat(
  values: Column,
  n: number,
  zeros: typeof KEEP_ZERO | typeof SKIP_ZERO | typeof SKIP_ZERO_IN_AVERAGE,
): Stat | null {
  const skipZero = zeros === SKIP_ZERO;
  const skipZeroInAverage = zeros === SKIP_ZERO_IN_AVERAGE;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (Number.isNaN(value) || (skipZero && value === 0)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    if (skipZeroInAverage && value === 0) continue;
    sum += value;
    count += 1;
  }
  if (min === Infinity) return null;
  return { min, avg: count === 0 ? 0 : sum / count, max };
}

/**
 * Speed: the average is distance over moving time; minimum and maximum come from the recorded speed,
 * or, when the file records none, from the distance covered over windows of at least
 * DERIVED_SPEED_WINDOW_SECONDS.
 */
function speedStat(
  columns: PointColumns,
  cumulative: Float64Array,
  distanceMeters: number | null,
  movingSeconds: number | null,
): Stat | null {
  const n = columns.length;
  const average =
    distanceMeters !== null && movingSeconds !== null && movingSeconds > 0
      ? distanceMeters / movingSeconds
      : null;
  const recorded = stat(columns.s, n, KEEP_ZERO);
  if (recorded !== null) return { min: recorded.min, avg: average ?? recorded.avg, max: recorded.max };
  if (distanceMeters === null || average === null) return null;

  const { t } = columns;
  let min = Infinity;
  let max = -Infinity;
  let start = 0;
  for (let end = 0; end < n; end++) {
    if (Number.isNaN(t[end]!)) continue;
    while (start < end && (Number.isNaN(t[start]!) || t[end]! - t[start]! > DERIVED_SPEED_WINDOW_SECONDS))
      start++;
    // `start` is now the first row within the window; step back one so the window spans at least its length.
    const from = start > 0 && !Number.isNaN(t[start - 1]!) ? start - 1 : start;
    const dt = t[end]! - t[from]!;
    if (dt < DERIVED_SPEED_WINDOW_SECONDS || dt > MAX_MOVING_GAP_SECONDS) continue;
    const speed = (cumulative[end]! - cumulative[from]!) / dt;
    if (speed < min) min = speed;
    if (speed > max) max = speed;
  }
  if (min === Infinity) return { min: average, avg: average, max: average };
  return { min, avg: average, max };
}

/** Normalized power needs a 30 s rolling average (Coggan); shorter rides have none. */
const NORMALIZED_POWER_WINDOW_SECONDS = 30;
/**
 * A power sample holds until the next one across gaps up to this long (smart recording writes a
 * sample every few seconds); a longer gap is a pause and is left out of the series, as paused time is
 * not riding time.
 */
const POWER_HOLD_SECONDS = 30;

function powerStat(columns: PointColumns): (Stat & { normalized: number | null }) | null {
  const base = stat(columns.p, columns.length, KEEP_ZERO);
  if (base === null) return null;
  return { ...base, normalized: normalizedPower(columns) };
}

/**
 * Normalized power: power as one value a second (each sample held until the next, pauses left out), a
 * 30 s rolling average, the mean of its fourth powers, and the fourth root of that. Null when there are
 * fewer than 30 s of power.
 */
export function normalizedPower(columns: PointColumns): number | null {
  const { t, p } = columns;
  const average = new RollingFourthPowers();
  // The value of the latest second stays open: more samples in the same second replace it.
  let open = NaN;
  let previousTime = NaN;
  for (let i = 0; i < columns.length; i++) {
    const time = Math.floor(t[i]!);
    const power = p[i]!;
    if (Number.isNaN(time) || Number.isNaN(power)) continue;
    const gap = time - previousTime;
    // Several samples in one second (or a clock going back) replace rather than add seconds.
    if (gap > 0 || Number.isNaN(previousTime)) {
      if (!Number.isNaN(open)) average.add(open);
      if (gap > 0 && gap <= POWER_HOLD_SECONDS) for (let k = 1; k < gap; k++) average.add(open);
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

function positionSummary(columns: PointColumns): {
  bounds: Bounds | null;
  first: Position | null;
  last: Position | null;
} {
  const { x, y } = columns;
  let first: Position | null = null;
  let lastIndex = -1;
  let swLat = Infinity;
  let swLng = Infinity;
  let neLat = -Infinity;
  let neLng = -Infinity;
  for (let i = 0; i < columns.length; i++) {
    const lat = y[i]!;
    const lng = x[i]!;
    if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
    first ??= { lat, lng };
    lastIndex = i;
    if (lat < swLat) swLat = lat;
    if (lat > neLat) neLat = lat;
    if (lng < swLng) swLng = lng;
    if (lng > neLng) neLng = lng;
  }
  if (first === null) return { bounds: null, first: null, last: null };
  return {
    bounds: { swLat, swLng, neLat, neLng },
    first,
    last: { lat: y[lastIndex]!, lng: x[lastIndex]! },
  };
}

/** Start and end closer than this (or than 5 % of the length, if more) make a loop. */
const LOOP_CLOSE_METERS = 250;
/** A point of the way back this close to the way out is on the same road. */
const RETRACE_METERS = 60;
/** An out-and-back retraces at least this share of its way back. */
const RETRACE_SHARE = 0.7;
/** At most this many positions are compared when looking for a retraced path. */
const RETRACE_SAMPLES = 300;

/**
 * `loop` when the track ends near where it started; `out_and_back` when, in addition, most of the way
 * back runs along the way out; `point_to_point` otherwise; `unknown` without two positions.
 */
export function trackType(columns: PointColumns, distanceMeters: number | null): TrackType {
  const sample = samplePositions(columns, RETRACE_SAMPLES);
  const { lat, lng, count } = sample;
  if (count < 2) return 'unknown';
  const startLat = lat[0]!;
  const startLng = lng[0]!;
  const gap = haversineMeters(startLat, startLng, lat[count - 1]!, lng[count - 1]!);
  const length = distanceMeters ?? pathLength(sample);
  if (length <= 0) return 'unknown';
  if (gap > Math.max(LOOP_CLOSE_METERS, 0.05 * length)) return 'point_to_point';

  // Split at the point farthest from the start; an out-and-back comes back along the same road.
  let farthest = 0;
  let farthestDistance = -1;
  for (let i = 0; i < count; i++) {
    const distance = haversineMeters(startLat, startLng, lat[i]!, lng[i]!);
    if (distance > farthestDistance) {
      farthestDistance = distance;
      farthest = i;
    }
  }
  // The way out is sample[0 … farthest], the way back sample[farthest + 1 …].
  const backCount = count - farthest - 1;
  if (backCount === 0 || farthestDistance < LOOP_CLOSE_METERS) return 'loop';
  // Positions this close are compared on a local plane: exact enough at tens of metres, and cheap.
  const metersPerDegreeLat = 111_195;
  const metersPerDegreeLng = metersPerDegreeLat * Math.cos((startLat * Math.PI) / 180);
  const limit = RETRACE_METERS * RETRACE_METERS;
  let retraced = 0;
  for (let back = farthest + 1; back < count; back++) {
    for (let out = 0; out <= farthest; out++) {
      const dy = (lat[back]! - lat[out]!) * metersPerDegreeLat;
      const dx = (lng[back]! - lng[out]!) * metersPerDegreeLng;
      if (dx * dx + dy * dy <= limit) {
        retraced++;
        break;
      }
    }
  }
  return retraced / backCount >= RETRACE_SHARE ? 'out_and_back' : 'loop';
}

interface PositionSample {
  lat: Float64Array;
  lng: Float64Array;
  count: number;
}

/** About `count` positions spread evenly over the track, always including the last. */
function samplePositions(columns: PointColumns, count: number): PositionSample {
  const { x, y } = columns;
  let total = 0;
  for (let i = 0; i < columns.length; i++) if (!Number.isNaN(y[i]!) && !Number.isNaN(x[i]!)) total++;
  const step = Math.max(1, Math.floor(total / count));
  const capacity = Math.ceil(total / step) + 1;
  const sample: PositionSample = {
    lat: new Float64Array(capacity),
    lng: new Float64Array(capacity),
    count: 0,
  };
  let seen = 0;
  let lastLat = NaN;
  let lastLng = NaN;
  for (let i = 0; i < columns.length; i++) {
    if (Number.isNaN(y[i]!) || Number.isNaN(x[i]!)) continue;
    if (seen % step === 0) {
      sample.lat[sample.count] = y[i]!;
      sample.lng[sample.count] = x[i]!;
      sample.count++;
    }
    seen++;
    lastLat = y[i]!;
    lastLng = x[i]!;
  }
  if (total > 0 && (total - 1) % step !== 0) {
    sample.lat[sample.count] = lastLat;
    sample.lng[sample.count] = lastLng;
    sample.count++;
  }
  return sample;
}

function pathLength({ lat, lng, count }: PositionSample): number {
  let total = 0;
  for (let i = 1; i < count; i++) total += haversineMeters(lat[i - 1]!, lng[i - 1]!, lat[i]!, lng[i]!);
  return total;
}

/** Climbing per kilometre below which a track is flat, and above which it is climbing. */
const FLAT_METERS_PER_KM = 5;
const CLIMBING_METERS_PER_KM = 12;

/** `flat`, `rolling` or `climbing`, by elevation gain per kilometre (flat when either is unknown). */
export function terrain(gainMeters: number | null, distanceMeters: number | null): Terrain {
  if (gainMeters === null || distanceMeters === null || distanceMeters < 100) return 'flat';
  const perKm = gainMeters / (distanceMeters / 1000);
  if (perKm < FLAT_METERS_PER_KM) return 'flat';
  return perKm < CLIMBING_METERS_PER_KM ? 'rolling' : 'climbing';
}
