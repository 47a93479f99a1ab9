import type { PointColumns } from './columns.js';
import { RideFileWarningCode } from './errors.js';
import type { RecordedTotals, Stat, Summary, TimeSpan, Warning } from './model.js';
import { normalizedPower } from './analysis.js';
import { channelStats, PLAUSIBLE, temperatureSpec } from './summary/channels.js';
import { Pauses } from './summary/clock.js';
import { cumulativeDistance, type CumulativeDistance } from './summary/distance.js';
import { elevationGainLoss, elevationSummary } from './summary/elevation.js';
import { positionSummary, terrain, trackType } from './summary/shape.js';
import { derivedSpeedRange, recordedSpeedRange, type SpeedRange } from './summary/speed.js';
import { stopSpeedMetersPerSecond } from './summary/stop-speed.js';
import { timeTotals, type TimeTotals } from './summary/time.js';

/**
 * Summaries per track (issues 2 and 16). Every number on every surface (server records, the dashboard,
 * `rideport inspect`) is one of these values, so every rule is written here and in docs/library/numbers.md ("How
 * the numbers are made"):
 *
 * - one rule for where each number comes from, stated in the summary (`distanceSource`, `timerSource`,
 *   `elevationSource`, `speedSource`): the file's own totals (FIT session, TCX lap sums) only when they
 *   describe the points that were read (fileTotalsDescribePoints); otherwise computed from the points;
 * - the invariants, whatever the file: min ≤ avg ≤ max for every channel, moving ≤ elapsed,
 *   timer ≤ elapsed, and distance ÷ moving time ≤ maximum speed (checkSpeed).
 */

/** What a reader knows about a track beside its columns (draft.ts). */
export interface SummaryContext {
  /** normalised sport, for the stop speed (summary/stop-speed.ts); absent: unknown */
  sport?: string | null;
  recorded: RecordedTotals | null;
  calories: number | null;
  device: string | null;
  pauses?: TimeSpan[];
  activeLengthsSeconds?: number;
}

export function summarize(
  columns: PointColumns,
  context: SummaryContext,
  warnings: readonly Warning[] = [],
): Summary {
  const n = columns.length;
  const pauses = new Pauses(context.pauses);
  const cumulative = cumulativeDistance(columns, pauses);
  const times = timeTotals(columns, cumulative, pauses, stopSpeedMetersPerSecond(context.sport ?? null));
  const recordedDescribesPoints = fileTotalsDescribePoints(context.recorded, times, warnings);
  const fileTotals = recordedDescribesPoints ? context.recorded : null;

  const pointsDistance = cumulative.source === null ? null : cumulative.meters[n - 1]!;
  let { distanceMeters, distanceSource } = distanceSummary(pointsDistance, cumulative.source, fileTotals);
  const { timerSeconds, timerSource } = timerSummary(times, fileTotals, pauses.count > 0);
  const movingSeconds = movingSummary(times, context.activeLengthsSeconds, timerSeconds);

  let speed = speedSummary(columns, cumulative, distanceMeters, timerSeconds, movingSeconds);
  if (speed.contradicted && distanceSource === 'file') {
    // The file's total needs more speed than the points ever show: it is not these points' distance.
    ({ distanceMeters, distanceSource } = {
      distanceMeters: pointsDistance,
      distanceSource: cumulative.source,
    });
    speed = speedSummary(columns, cumulative, distanceMeters, timerSeconds, movingSeconds);
  }

  const positions = positionSummary(columns);
  const elevation = elevationSummary(
    elevationGainLoss(columns.e, columns.t, cumulative.meters, n),
    fileTotals,
  );
  const [heartRate, cadence, power, temperature] = channelStats(
    columns,
    [
      { values: columns.h, zeros: 'skip', bounds: PLAUSIBLE.heartRate },
      { values: columns.c, zeros: 'skip-in-average', bounds: PLAUSIBLE.cadence },
      { values: columns.p, zeros: 'keep', bounds: PLAUSIBLE.power },
      temperatureSpec(columns),
    ],
    times.holdSeconds,
  );
  return {
    pointCount: n,
    distanceMeters,
    distanceSource,
    elapsedSeconds: times.elapsedSeconds,
    timerSeconds,
    timerSource,
    movingSeconds: speed.movingSeconds,
    elevationGainMeters: elevation.gain,
    elevationLossMeters: elevation.loss,
    elevationSource: elevation.source,
    speedMetersPerSecond: speed.stat,
    speedSource: speed.source,
    speedSpikesIgnored: cumulative.spikeRows.size + speed.spikes,
    clockJumps: times.jumps,
    heartRateBpm: heartRate ?? null,
    cadenceRpm: cadence ?? null,
    powerWatts: power == null ? null : { ...power, normalized: normalizedPower(columns) },
    temperatureCelsius: temperature ?? null,
    calories: context.calories,
    device: context.device,
    bounds: positions.bounds,
    firstPosition: positions.first,
    lastPosition: positions.last,
    trackType: trackType(columns, distanceMeters, positions.count),
    terrain: terrain(elevation.gain, distanceMeters),
    recorded: context.recorded,
    recordedDescribesPoints,
  };
}

/** Warnings that say the points are not all the file held, or not in the order it held them. */
const INCOMPLETE_WARNINGS: ReadonlySet<string> = new Set([
  RideFileWarningCode.TRUNCATED,
  RideFileWarningCode.MALFORMED_XML,
  RideFileWarningCode.SKIPPED_DATA,
]);

/** How far the file's elapsed time may lie from the points' and still describe them (1 s rounding, a last record missing). */
const ELAPSED_TOLERANCE_SECONDS = 30;
const ELAPSED_TOLERANCE_SHARE = 0.02;

/**
 * Whether the file's own numbers (FIT session, TCX lap sums, and the laps) describe the points that
 * were read: never for a cut-off file or one read with realignments (they count bytes that were not
 * read), and only when the times agree: the session's elapsed time matches the points', and laps cover
 * no more time than their points do (a TCX that kept an Ironman's laps but 4 seconds of points). A
 * file read whole that states no totals has nothing against it.
 */
function fileTotalsDescribePoints(
  recorded: RecordedTotals | null,
  times: TimeTotals,
  warnings: readonly Warning[],
): boolean {
  if (warnings.some((warning) => INCOMPLETE_WARNINGS.has(warning.code))) return false;
  const elapsed = times.elapsedSeconds;
  // No totals, or device-relative times: nothing to compare, nothing against.
  if (recorded === null || elapsed === null) return true;
  const tolerance = Math.max(ELAPSED_TOLERANCE_SECONDS, ELAPSED_TOLERANCE_SHARE * elapsed);
  if (recorded.elapsedSeconds !== null) return Math.abs(recorded.elapsedSeconds - elapsed) <= tolerance;
  if (recorded.timerSeconds !== null) return recorded.timerSeconds <= elapsed + tolerance;
  return true;
}

/** Below this distance along the points, a file's total distance of zero is believed (indoor, stationary). */
const TRUSTED_ZERO_DISTANCE_METERS = 100;

/**
 * The file's total distance when it describes the points, as the device showed it; else the points' own
 * (recorded per point, or along the positions). A stated zero is believed only when the points hardly
 * move.
 */
function distanceSummary(
  pointsDistance: number | null,
  pointsSource: CumulativeDistance['source'],
  fileTotals: RecordedTotals | null,
): { distanceMeters: number | null; distanceSource: Summary['distanceSource'] } {
  const stated = fileTotals?.distanceMeters ?? null;
  if (stated !== null && (stated > 0 || (pointsDistance ?? 0) < TRUSTED_ZERO_DISTANCE_METERS)) {
    return { distanceMeters: stated, distanceSource: 'file' };
  }
  return { distanceMeters: pointsDistance, distanceSource: pointsSource };
}

/** The device's timer (Summary.timerSeconds), never longer than the elapsed time of the points. */
function timerSummary(
  times: TimeTotals,
  fileTotals: RecordedTotals | null,
  marksPauses: boolean,
): Pick<Summary, 'timerSeconds' | 'timerSource'> {
  const elapsed = times.elapsedSeconds;
  if (elapsed === null) return { timerSeconds: null, timerSource: null };
  const stated = fileTotals?.timerSeconds ?? null;
  if (stated !== null) return { timerSeconds: Math.min(elapsed, Math.round(stated)), timerSource: 'file' };
  if (marksPauses) return { timerSeconds: elapsed - times.pausedSeconds, timerSource: 'pauses' };
  return { timerSeconds: elapsed, timerSource: 'points' };
}

/**
 * A pool swim moves during its active lengths; everything else as timeTotals judged it. Never more than
 * the timer: a device whose auto-pause stops sooner than our stop speed is taken at its word, as Strava
 * takes a device's pauses.
 */
function movingSummary(
  times: TimeTotals,
  activeLengthsSeconds: number | undefined,
  timerSeconds: number | null,
): number | null {
  if (timerSeconds === null) return times.movingSeconds;
  const moving = activeLengthsSeconds === undefined ? times.movingSeconds : Math.round(activeLengthsSeconds);
  return moving === null ? null : Math.min(timerSeconds, moving);
}

/** Averages and ranges that differ by less than this share are one measurement rounded two ways. */
const SPEED_ROUNDING_SHARE = 0.02;

interface SpeedSummary {
  stat: Stat | null;
  source: Summary['speedSource'];
  /** the moving time, raised where the distance needs more time at the maximum speed */
  movingSeconds: number | null;
  /** isolated recorded speed samples left out (summary/speed.ts) */
  spikes: number;
  /** no range the points give fits the distance: it is not these points' distance */
  contradicted: boolean;
}

/**
 * Average speed is distance ÷ moving time. Its minimum and maximum come from the speed the device
 * recorded when that fits the distance, else from the distance or positions (summary/speed.ts).
 *
 * Covering a distance takes at least distance ÷ maximum speed, so the moving time is never shorter than
 * that (a walker creeping below the stop speed still covered the way), and a range whose maximum needs
 * more time than the timer ran, or whose every value lies far above the average, does not measure
 * this track's motion: the speed of a smart trainer or a GPX `speed` extension that disagrees with the
 * positions, or a file's total distance of which the points hold only part. A difference within
 * rounding of the average is taken as the average, so min ≤ avg ≤ max holds exactly.
 */
function speedSummary(
  columns: PointColumns,
  cumulative: CumulativeDistance,
  distanceMeters: number | null,
  timerSeconds: number | null,
  movingSeconds: number | null,
): SpeedSummary {
  const none = { stat: null, source: null, movingSeconds, spikes: 0 };
  // The moving time may grow up to the timer time, never past it.
  const longest = timerSeconds;
  if (distanceMeters === null || !(distanceMeters > 0) || movingSeconds === null || longest === null) {
    return { ...none, contradicted: false };
  }
  // In order, each computed only when the one before does not fit.
  const candidates: Array<[() => SpeedRange | null, NonNullable<Summary['speedSource']>]> = [
    [() => recordedSpeedRange(columns), 'points'],
    [
      () => (cumulative.source === null ? null : derivedSpeedRange(columns, cumulative)),
      cumulative.source === 'points' ? 'distance' : 'positions',
    ],
  ];
  for (const [rangeOf, source] of candidates) {
    const range = rangeOf();
    if (range === null || !(range.max > 0)) continue;
    const least = distanceMeters / range.max;
    if (least > longest * (1 + SPEED_ROUNDING_SHARE)) continue;
    // Whole seconds, as every time of the summary (the small allowance keeps 5.0000001 at 5).
    const moving = Math.min(longest, Math.max(movingSeconds, Math.ceil(least - 1e-6)));
    const average = distanceMeters / moving;
    if (moving <= 0 || average < range.min * (1 - SPEED_ROUNDING_SHARE)) continue;
    return {
      stat: { min: Math.min(range.min, average), avg: average, max: Math.max(range.max, average) },
      source,
      movingSeconds: moving,
      spikes: range.spikes,
      contradicted: false,
    };
  }
  return { ...none, contradicted: true };
}
