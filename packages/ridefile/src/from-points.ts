/**
 * A Track from legacy track points that arrive as data rather than as a file: the legacy interface's
 * "create a ride from raw points" (docs/integrators/api.md, Track point; docs/contributors/decisions.md §5), and anyone who has
 * points and wants the summary the parser would give them.
 *
 * The points are taken as the specification defines them: `s` and `d` are sent only when a wheel
 * sensor measured them, so a point that carries either is a wheel-sensor point. Times are whole Unix
 * seconds (fractions floored, like every reader's). Checking that the values are plausible (a time in
 * milliseconds, a latitude of 200) is the caller's part: this builds what it is given.
 */
import { PointColumns, SLOT_C, SLOT_D, SLOT_H, SLOT_P, SLOT_S, SLOT_TEMPERATURE } from './columns.js';
import { noWheelSensor, UNKNOWN_RECORDING } from './draft.js';
import type { Stat, Track, TrackKind, TrackPoint } from './model.js';
import { channelStats, PLAUSIBLE, temperatureSpec } from './summary/channels.js';
import { Pauses } from './summary/clock.js';
import type { CumulativeDistance } from './summary/distance.js';
import { stopSpeedMetersPerSecond } from './summary/stop-speed.js';
import { timeTotals } from './summary/time.js';
import { finishTrack } from './track.js';

/** What `trackFromPoints` is told about the track beside its points. */
export interface TrackFromPointsOptions {
  /** default: a ride when any point has a time, else a route */
  kind?: TrackKind;
  /** the track's name */
  name?: string | null;
  /** normalised snake_case sport, e.g. `cycling` */
  sport?: string | null;
  /** normalised snake_case sub-sport, e.g. `road` */
  subSport?: string | null;
  /** the recording device, e.g. "Garmin Edge 530", for `summary.device` */
  device?: string | null;
}

/**
 * A `Track` made from points you have (no laps), with the summary `parseRideFile` would give them:
 * to write them out with the writers, or to summarise them by the same rules. `s` and `d` count as
 * wheel-sensor values (`sensors.wheelSensor`) when any point has them.
 */
export function trackFromPoints(points: readonly TrackPoint[], options: TrackFromPointsOptions = {}): Track {
  const { columns, timed, wheel } = pointColumns(points);
  return finishTrack({
    kind: options.kind ?? (timed ? 'ride' : 'route'),
    name: options.name ?? null,
    sport: options.sport ?? null,
    subSport: options.subSport ?? null,
    startTime: null,
    columns,
    laps: [],
    sensors: wheel
      ? {
          wheelSensor: true,
          wheelSensorReason: 'the points carry speed or distance, which are sent only from a wheel sensor',
          devices: [],
        }
      : noWheelSensor('the points carry no speed or distance'),
    recorded: null,
    calories: null,
    device: options.device ?? null,
    recording: UNKNOWN_RECORDING,
  });
}

/** The points as the summary's columns; whether any has a time, and any a wheel-sensor value. */
function pointColumns(points: readonly TrackPoint[]): {
  columns: PointColumns;
  timed: boolean;
  wheel: boolean;
} {
  const columns = new PointColumns(Math.max(points.length, 1), Math.max(points.length, 1));
  let timed = false;
  let wheel = false;
  for (const point of points) {
    const row = columns.append();
    if (point.x !== undefined && point.y !== undefined) {
      columns.x[row] = point.x;
      columns.y[row] = point.y;
    }
    if (point.e !== undefined) columns.e[row] = point.e;
    if (point.t !== undefined) {
      columns.t[row] = point.t;
      timed = true;
    }
    if (point.c !== undefined) columns.set(SLOT_C, row, point.c);
    if (point.h !== undefined) columns.set(SLOT_H, row, point.h);
    if (point.p !== undefined) columns.set(SLOT_P, row, point.p);
    if (point.s !== undefined) columns.set(SLOT_S, row, point.s);
    if (point.d !== undefined) columns.set(SLOT_D, row, point.d);
    if (point.T !== undefined) columns.set(SLOT_TEMPERATURE, row, point.T);
    if (point.s !== undefined || point.d !== undefined) {
      columns.wheel[row] = 1;
      wheel = true;
    }
  }
  return { columns, timed, wheel };
}

/**
 * Elevation and temperature by the summary's rules (channelStats, each value held for its seconds as
 * timeTotals counts them), for points stored without their file (no pauses, no file totals): what
 * the ride page's chart captions say, so they average as the summary does (issue 19: one function,
 * not two). Temperature is summarize()'s `temperatureCelsius` of the same points.
 */
export function elevationAndTemperature(points: readonly TrackPoint[]): {
  elevationMeters: Stat | null;
  temperatureCelsius: Stat | null;
} {
  const { columns } = pointColumns(points);
  // The distance and the stop speed decide moving time only, never the seconds a value holds: a track
  // that covers no distance stands in, which spares measuring it (issue 19, bench/ride-page.ts).
  const n = columns.length;
  const noDistance: CumulativeDistance = {
    meters: new Float64Array(n),
    source: null,
    measured: new Float64Array(n).fill(NaN),
    spikeRows: new Set(),
  };
  const times = timeTotals(columns, noDistance, new Pauses(), stopSpeedMetersPerSecond(null));
  const [elevationMeters, temperatureCelsius] = channelStats(
    columns,
    [{ values: columns.e, zeros: 'keep', bounds: PLAUSIBLE.elevation }, temperatureSpec(columns)],
    times.holdSeconds,
  );
  return { elevationMeters: elevationMeters ?? null, temperatureCelsius: temperatureCelsius ?? null };
}
