/**
 * What the ride page's browser script draws (issue 7: "Renders fast for a 50,000-point ride
 * (downsample for drawing, not for the data)"): the track's outline and one chart series per channel,
 * each cut down to at most MAX_DRAWN_POINTS. Charts keep the minimum and the maximum of every bucket of
 * consecutive points, so a peak or a dip never disappears from a chart; the outline keeps every n-th
 * position (and the last), which at the map's scale is indistinguishable from the whole track.
 * Downloads carry every point (downloads.ts); only drawing is downsampled.
 */
import type { TrackPoint } from '@rideport/ridefile';
import type { Units } from '@rideport/server/web';
import { UNIT_SYSTEMS } from './format.js';

/** At most this many points per drawn series (issue 7: "at most ~2,000 points per series"). */
export const MAX_DRAWN_POINTS = 2000;

export type ChannelKey = 'e' | 's' | 'h' | 'c' | 'p' | 'T';

/**
 * x values and y values of one drawn series, the same length; a null y marks a pause (no record for
 * more than PAUSE_SECONDS), which the chart draws as a gap rather than a line across it (issue 19).
 */
export type XY = [x: number[], y: Array<number | null>];

export interface ChartSeries {
  key: ChannelKey;
  label: string;
  unit: string;
  /** speed computed from positions and times (no wheel sensor gave `s`) */
  derived: boolean;
  /** against seconds from the start; null when the points have no times */
  time: XY | null;
  /** against distance from the start (km or mi, DrawingData.distanceUnit); null when none is known */
  distance: XY | null;
  /** over every point, not only the drawn ones: for the chart's text alternative */
  min: number;
  avg: number;
  max: number;
}

export interface DrawingData {
  /** [lat, lng] pairs, rounded to 5 decimals (about a metre) */
  track: Array<[number, number]>;
  /** each track point's time (s) and distance (DrawingData.distanceUnit) from the start; null unknown */
  trackAt: { time: Array<number | null>; distance: Array<number | null> };
  /** [[south, west], [north, east]] of every position, or null when there is none */
  bounds: [[number, number], [number, number]] | null;
  charts: ChartSeries[];
  /** how many points the asset has (the data, not the drawing) */
  pointCount: number;
  /** the unit of the charts' distance axis: the rider's (issue 19) */
  distanceUnit: string;
}

/** Each channel's label, and its unit and conversion from stored values in the rider's units. */
/** The channels that a sensor writes 0 into when it reads nothing. */
const ZEROS_ARE_NO_READING: ReadonlySet<ChannelKey> = new Set(['s', 'h', 'c', 'p']);

function channels(
  units: Units,
): ReadonlyArray<{ key: ChannelKey; label: string; unit: string; convert: (value: number) => number }> {
  const system = UNIT_SYSTEMS[units];
  const same = (value: number): number => value;
  return [
    {
      key: 'e',
      label: 'Elevation',
      unit: system.elevation.unit,
      convert: (m) => m * system.elevation.perMetre,
    },
    { key: 's', label: 'Speed', unit: system.speed.unit, convert: (kmh) => kmh * system.speed.perKmh },
    { key: 'h', label: 'Heart rate', unit: 'bpm', convert: same },
    { key: 'c', label: 'Cadence', unit: 'rpm', convert: same },
    { key: 'p', label: 'Power', unit: 'W', convert: same },
    {
      key: 'T',
      label: 'Temperature',
      unit: system.temperature.unit,
      convert: system.temperature.fromCelsius,
    },
  ];
}

/**
 * A gap between records longer than this is a pause, drawn as a gap: the time a sample holds in the
 * summary and the analysis (ridefile's HOLD_SECONDS), so the charts break where those stop counting.
 */
export const PAUSE_SECONDS = 30;

const EARTH_RADIUS_METERS = 6_371_008.8;
const RADIANS = Math.PI / 180;
/** Speed from positions is averaged over this many seconds, so GPS jitter does not make spikes. */
const SPEED_WINDOW_SECONDS = 10;

function haversineMeters(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RADIANS;
  const dLng = (lng2 - lng1) * RADIANS;
  const a =
    Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RADIANS) * Math.cos(lat2 * RADIANS) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(a)));
}

const round = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};

/** The points as columns: what the charts draw and the analysis reads (analysis.ts). */
export type Columns = Record<'x' | 'y' | 't' | 'd' | ChannelKey, Float64Array> & { length: number };

/**
 * The points as columns (NaN where a point has no finite value; `s` in km/h), in one pass that reads
 * each key by name: reading them by a variable key was the slowest part of the page for a long ride.
 */
export function readColumns(points: readonly TrackPoint[]): Columns {
  const n = points.length;
  const column = (): Float64Array => new Float64Array(n);
  const columns: Columns = {
    x: column(),
    y: column(),
    t: column(),
    d: column(),
    e: column(),
    s: column(),
    h: column(),
    c: column(),
    p: column(),
    T: column(),
    length: n,
  };
  const { x, y, t, d, e, s, h, c, p, T } = columns;
  const finite = (value: number | undefined): number =>
    value !== undefined && Number.isFinite(value) ? value : NaN;
  for (let i = 0; i < n; i++) {
    const point = points[i]!;
    x[i] = finite(point.x);
    y[i] = finite(point.y);
    t[i] = finite(point.t);
    d[i] = finite(point.d);
    e[i] = finite(point.e);
    s[i] = finite(point.s) * 3.6;
    h[i] = finite(point.h);
    c[i] = finite(point.c);
    p[i] = finite(point.p);
    T[i] = finite(point.T);
  }
  return columns;
}

/** Whether any value is a number. Plain loops here: typed arrays' some, find and map call a function per value. */
function hasAny(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) return true;
  return false;
}

function firstNumber(values: Float64Array): number | undefined {
  for (let i = 0; i < values.length; i++) if (values[i] === values[i]) return values[i];
  return undefined;
}

/** `values` in the rider's units (NaN stays NaN). */
function converted(values: Float64Array, convert: (value: number) => number): Float64Array {
  const result = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) result[i] = convert(values[i]!);
  return result;
}

export function drawingData(columns: Columns, units: Units = 'metric'): DrawingData {
  const n = columns.length;
  const { x, y, t, d } = columns;
  const metresPerDistanceUnit = 1 / UNIT_SYSTEMS[units].distance.perMetre;
  const seconds = new Float64Array(n).fill(NaN);
  const meters = new Float64Array(n).fill(NaN);
  const t0 = firstNumber(t);
  const hasWheelDistance = hasAny(d);

  // pausesUpTo[i]: the pauses at or before row i, so a drawn series knows if one lies between two points.
  const pausesUpTo = new Int32Array(n);
  let pauses = 0;
  let lastTime = NaN;
  for (let i = 0; i < n; i++) {
    const time = t[i]!;
    if (!Number.isNaN(time)) {
      if (time - lastTime > PAUSE_SECONDS) pauses++;
      lastTime = time;
    }
    pausesUpTo[i] = pauses;
  }

  // Positions: the outline, the bounds, and (without a wheel sensor) the distance from the start.
  const positions: number[] = [];
  let south = Infinity;
  let west = Infinity;
  let north = -Infinity;
  let east = -Infinity;
  let cumulative = 0;
  let lastLat = NaN;
  let lastLng = NaN;
  for (let i = 0; i < n; i++) {
    if (t0 !== undefined) seconds[i] = t[i]! - t0;
    const lng = x[i]!;
    const lat = y[i]!;
    if (!Number.isNaN(lng) && !Number.isNaN(lat)) {
      positions.push(i);
      if (lat < south) south = lat;
      if (lat > north) north = lat;
      if (lng < west) west = lng;
      if (lng > east) east = lng;
      if (!Number.isNaN(lastLat)) cumulative += haversineMeters(lastLat, lastLng, lat, lng);
      lastLat = lat;
      lastLng = lng;
    }
    if (hasWheelDistance) meters[i] = d[i]!;
    else if (!Number.isNaN(lastLat)) meters[i] = cumulative;
  }

  const stride = Math.max(1, Math.ceil(positions.length / MAX_DRAWN_POINTS));
  const track: Array<[number, number]> = [];
  // Each outline point's time and distance from the start, in the charts' x units, so the shared
  // cursor can show where on the map a chart's moment was (issue 19).
  const trackTime: Array<number | null> = [];
  const trackDistance: Array<number | null> = [];
  const outline = (i: number): void => {
    track.push([round(y[i]!, 5), round(x[i]!, 5)]);
    trackTime.push(Number.isNaN(seconds[i]!) ? null : seconds[i]!);
    trackDistance.push(Number.isNaN(meters[i]!) ? null : round(meters[i]! / metresPerDistanceUnit, 3));
  };
  for (let k = 0; k < positions.length; k += stride) outline(positions[k]!);
  if (positions.length > 0 && (positions.length - 1) % stride !== 0) {
    outline(positions[positions.length - 1]!);
  }

  const wheelSpeeds = hasAny(columns.s);
  const charts: ChartSeries[] = [];
  for (const { key, label, unit, convert } of channels(units)) {
    const derived = key === 's' && !wheelSpeeds;
    const stored = derived ? speedFromPositions(seconds, meters) : columns[key];
    if (stored === null) continue;
    const values = converted(stored, convert);
    const stats = statistics(values);
    // No channel at all, or a sensor's channel of nothing but zeros (a trainer without a wheel sensor,
    // a power meter paired but silent; issue 40): no chart. Elevation and temperature can be 0 all ride.
    if (stats === null || (ZEROS_ARE_NO_READING.has(key) && stats.min === 0 && stats.max === 0)) continue;
    charts.push({
      key,
      label,
      unit,
      derived,
      time: t0 === undefined ? null : series(seconds, values, 1, 0, pausesUpTo),
      distance: series(meters, values, metresPerDistanceUnit, 3, pausesUpTo),
      ...stats,
    });
  }
  return {
    track,
    trackAt: { time: trackTime, distance: trackDistance },
    bounds:
      positions.length === 0
        ? null
        : [
            [south, west],
            [north, east],
          ],
    charts,
    pointCount: n,
    distanceUnit: UNIT_SYSTEMS[units].distance.unit,
  };
}

/** km/h over the last SPEED_WINDOW_SECONDS at each point that has a time and a distance. */
function speedFromPositions(seconds: Float64Array, meters: Float64Array): Float64Array | null {
  const speeds = new Float64Array(seconds.length).fill(NaN);
  let any = false;
  let from = 0;
  for (let i = 0; i < seconds.length; i++) {
    if (Number.isNaN(seconds[i]!) || Number.isNaN(meters[i]!)) continue;
    while (
      from < i &&
      (Number.isNaN(seconds[from]!) ||
        Number.isNaN(meters[from]!) ||
        seconds[i]! - seconds[from]! > SPEED_WINDOW_SECONDS)
    ) {
      from++;
    }
    const dt = seconds[i]! - seconds[from]!;
    if (from < i && dt > 0) {
      speeds[i] = ((meters[i]! - meters[from]!) / dt) * 3.6;
      any = true;
    }
  }
  return any ? speeds : null;
}

function statistics(values: Float64Array): { min: number; avg: number; max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    if (value < min) min = value;
    if (value > max) max = value;
    sum += value;
    count++;
  }
  return count === 0 ? null : { min: round(min, 1), avg: round(sum / count, 1), max: round(max, 1) };
}

/**
 * The points that have both an x and a y, x divided by `xScale` and rounded to `xDecimals`, y to one
 * decimal; downsampled to MAX_DRAWN_POINTS keeping each bucket's minimum and maximum (in their order).
 * Null when no point has both. x must not decrease (times and distances from the start do not).
 */
function series(
  x: Float64Array,
  y: Float64Array,
  xScale: number,
  xDecimals: number,
  pausesUpTo: Int32Array,
): XY | null {
  const indices = new Int32Array(x.length);
  let count = 0;
  for (let i = 0; i < x.length; i++) {
    if (!Number.isNaN(x[i]!) && !Number.isNaN(y[i]!)) indices[count++] = i;
  }
  if (count === 0) return null;
  let kept: Iterable<number> = indices.subarray(0, count);
  if (count > MAX_DRAWN_POINTS) {
    const chosen: number[] = [];
    const buckets = MAX_DRAWN_POINTS / 2;
    for (let b = 0; b < buckets; b++) {
      const start = Math.floor((b * count) / buckets);
      const end = Math.floor(((b + 1) * count) / buckets);
      if (start >= end) continue;
      let lowest = indices[start]!;
      let highest = lowest;
      for (let k = start + 1; k < end; k++) {
        const i = indices[k]!;
        if (y[i]! < y[lowest]!) lowest = i;
        if (y[i]! > y[highest]!) highest = i;
      }
      if (lowest === highest) chosen.push(lowest);
      else chosen.push(Math.min(lowest, highest), Math.max(lowest, highest));
    }
    kept = chosen;
  }
  const xs: number[] = [];
  const ys: Array<number | null> = [];
  let previous = -1;
  for (const i of kept) {
    const at = round(x[i]! / xScale, xDecimals);
    // A pause between two drawn points: a null between them, which uPlot leaves as a gap.
    if (previous >= 0 && pausesUpTo[i]! > pausesUpTo[previous]!) {
      xs.push(round((x[previous]! + x[i]!) / 2 / xScale, xDecimals));
      ys.push(null);
    }
    xs.push(at);
    ys.push(round(y[i]!, 1));
    previous = i;
  }
  return [xs, ys];
}
