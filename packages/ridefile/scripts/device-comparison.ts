/**
 * Our numbers against the devices' own (issue 16, "checked against the devices"): for every FIT file
 * with a session, the values computed from the points, never copied from the session, beside the
 * session's, like with like. `src/device-comparison.test.ts` asserts the agreement; this prints it:
 *
 *   npm run compare:devices [-- <corpus dir>]
 *
 * Like with like means the device's definitions, not the summary's: the timer time from the file's
 * timer events, the average speed as distance ÷ timer time (the summary's own is distance ÷ moving
 * time, Strava's convention), each session over the records of its own time span.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PointColumns } from '../src/columns.js';
import type { TrackDraft } from '../src/draft.js';
import { isRideFileError, RideFileErrorCode } from '../src/errors.js';
import { decodeFit, type FitMessage } from '../src/fit/decoder.js';
import { numberField } from '../src/fit/names.js';
import { FIT_EPOCH_OFFSET_SECONDS, FIT_MIN_ABSOLUTE_TIME, typeValue } from '../src/fit/profile.js';
import { readFit } from '../src/fit/read.js';
import type { TimeSpan } from '../src/model.js';
import { channelStats, PLAUSIBLE, type Zeros } from '../src/summary/channels.js';
import { Pauses } from '../src/summary/clock.js';
import { cumulativeDistance } from '../src/summary/distance.js';
import { recordedSpeedRange } from '../src/summary/speed.js';
import { stopSpeedMetersPerSecond } from '../src/summary/stop-speed.js';
import { timeTotals } from '../src/summary/time.js';

export const METRICS = [
  'distance',
  'timer',
  'avgSpeed',
  'maxSpeed',
  'avgHeartRate',
  'maxHeartRate',
  'avgPower',
  'maxPower',
  'maxCadence',
  'avgCadence',
] as const;

/** Averages devices compute two ways: with zeros (coasting) and without. */
export const BOTH_CONVENTIONS = ['avgPower', 'avgCadence'] as const;
export type Metric = (typeof METRICS)[number];

/** How near ours must be to the device's: a share of it, or an absolute amount, whichever is larger. */
export const TOLERANCES: Readonly<Record<Metric, { share: number; absolute: number }>> = {
  distance: { share: 0.01, absolute: 0 },
  // FIT writes every timestamp, of events and records alike, in whole seconds.
  timer: { share: 0.01, absolute: 1 },
  avgSpeed: { share: 0.02, absolute: 0 },
  maxSpeed: { share: 0.02, absolute: 0 },
  avgHeartRate: { share: 0.02, absolute: 1 },
  maxHeartRate: { share: 0.02, absolute: 0 },
  avgPower: { share: 0.02, absolute: 1 },
  maxPower: { share: 0.02, absolute: 0 },
  maxCadence: { share: 0.02, absolute: 0 },
  avgCadence: { share: 0.02, absolute: 1 },
};

export interface Comparison {
  file: string;
  /** the session's index in the file (chained files count on) */
  session: number;
  /** averages of power and cadence with zeros */
  ours: Partial<Record<Metric, number>>;
  /** the averages of power and cadence without zeros, as devices differ in which they record */
  oursWithoutZeros: Partial<Record<(typeof BOTH_CONVENTIONS)[number], number>>;
  device: Partial<Record<Metric, number>>;
}

/** Every session of a FIT file beside our values for its records. */
export function compareFile(file: string, bytes: Uint8Array): Comparison[] {
  const segments = decodeFit(bytes, {
    maxPoints: 2_000_000,
    messages: new Set(['session', 'event']),
  }).segments.filter((segment) => segment.records.length > 0);
  let drafts: TrackDraft[];
  try {
    drafts = readFit(bytes, { maxPoints: 2_000_000 }).drafts;
  } catch (error) {
    // A file with nothing to show (no record with a time or a position) has nothing to compare.
    if (isRideFileError(error) && error.code === RideFileErrorCode.NO_TRACKS) return [];
    throw error;
  }
  if (segments.length !== drafts.length)
    throw new Error(`${file}: ${segments.length} segments, ${drafts.length} tracks`);
  const comparisons: Comparison[] = [];
  drafts.forEach((draft, index) => {
    const events = segments[index]!.messages.get('event') ?? [];
    const sessions = segments[index]!.messages.get('session') ?? [];
    const starts = sessions.map((session) => numberField(session, 'startTime') ?? NaN);
    sessions.forEach((session) => {
      const span = sessionSpan(session, starts);
      if (span === null) return;
      const { columns, distanceBefore } = rowsWithin(draft.columns, span);
      if (columns.length === 0) return;
      const pauses = (draft.pauses ?? []).filter(([from, to]) => to > span[0] && from < span[1]);
      const values = ourValues(columns, pauses, draft.sport, distanceBefore);
      const timer = timerFromEvents(events, span);
      if (timer !== null) {
        values.ours.timer = timer;
        if (values.ours.distance !== undefined && timer > 0)
          values.ours.avgSpeed = values.ours.distance / timer;
      }
      comparisons.push({ file, session: comparisons.length, ...values, device: deviceValues(session) });
    });
  });
  return comparisons;
}

const EVENT_TIMER = typeValue('event', 'timer');
const TIMER_START = typeValue('eventType', 'start');

/**
 * The device's timer as its events tell it, within a session's span: the time from each timer start
 * to the next stop (any kind: stop, the stop_all of auto-pause, stop_disable…). Null without events.
 * The records alone cannot say it: they start when the first fix or sensor value arrives and may end
 * before the timer stops.
 */
function timerFromEvents(events: readonly FitMessage[], [from, to]: TimeSpan): number | null {
  let runningSince = NaN;
  let total = 0;
  let seen = false;
  for (const event of events) {
    if (numberField(event, 'event') !== EVENT_TIMER) continue;
    const time = (numberField(event, 'timestamp') ?? NaN) + FIT_EPOCH_OFFSET_SECONDS;
    if (!(time >= from && time <= to)) continue;
    const isStart = numberField(event, 'eventType') === TIMER_START;
    // A session whose first timer event is a stop was running from its start.
    if (!seen && !isStart) runningSince = from;
    seen = true;
    if (isStart) {
      if (Number.isNaN(runningSince)) runningSince = time;
    } else if (!Number.isNaN(runningSince)) {
      total += time - runningSince;
      runningSince = NaN;
    }
  }
  if (!seen) return null;
  if (!Number.isNaN(runningSince)) total += to - runningSince;
  return total;
}

/**
 * The time a session covers, from its start_time for its elapsed time. Sessions do not overlap: one
 * whose span runs more than a minute into the next session's start has a wrong start_time (a Fenix 2 multisport file's
 * first session starts 45 minutes after its first record, yet its elapsed time ends where the second
 * begins), and ends where the next begins.
 */
const SESSION_OVERLAP_SECONDS = 60;

function sessionSpan(session: FitMessage, starts: readonly number[]): TimeSpan | null {
  const start = numberField(session, 'startTime');
  const elapsed = numberField(session, 'totalElapsedTime');
  if (start === undefined || elapsed === undefined || start < FIT_MIN_ABSOLUTE_TIME) return null;
  const nextStart = Math.min(...starts.filter((other) => other > start));
  if (start + elapsed > nextStart + SESSION_OVERLAP_SECONDS) {
    const to = nextStart + FIT_EPOCH_OFFSET_SECONDS;
    return [to - elapsed, to];
  }
  const from = start + FIT_EPOCH_OFFSET_SECONDS;
  return [from, from + elapsed];
}

/**
 * A copy of the rows timed within `span` (a multisport file's session, or the whole activity), and the
 * distance counter's value just before it when the counter runs on into the span (null when it starts
 * again from zero there, as multisport devices do per session, or the span opens the file).
 */
function rowsWithin(
  columns: PointColumns,
  [from, to]: TimeSpan,
): { columns: PointColumns; distanceBefore: number | null } {
  const slice = new PointColumns(2_000_000, columns.length);
  let distanceBefore = NaN;
  for (let row = 0; row < columns.length; row++) {
    const time = columns.t[row]!;
    if (time < from && !Number.isNaN(columns.d[row]!)) distanceBefore = columns.d[row]!;
    if (!(time >= from && time <= to)) continue;
    const copy = slice.append();
    columns.channels.forEach((channel, slot) => {
      slice.set(slot, copy, channel[row]!);
    });
    slice.wheel[copy] = columns.wheel[row]!;
  }
  let firstDistance = 0;
  while (firstDistance < slice.length && Number.isNaN(slice.d[firstDistance]!)) firstDistance++;
  const runsOn =
    !Number.isNaN(distanceBefore) &&
    firstDistance < slice.length &&
    slice.d[firstDistance]! >= distanceBefore;
  return { columns: slice, distanceBefore: runsOn ? distanceBefore : null };
}

function ourValues(
  columns: PointColumns,
  spans: TimeSpan[],
  sport: string | null,
  distanceBefore: number | null,
): Pick<Comparison, 'ours' | 'oursWithoutZeros'> {
  const pauses = new Pauses(spans);
  const distance = cumulativeDistance(columns, pauses);
  const times = timeTotals(columns, distance, pauses, stopSpeedMetersPerSecond(sport));
  const ours: Partial<Record<Metric, number>> = {};
  // As devices count a session's distance: from the record before it when the counter runs on.
  const end = distance.source === null ? null : distance.meters[columns.length - 1]!;
  const meters = end === null ? null : distanceBefore === null ? end : end - distanceBefore;
  if (meters !== null) ours.distance = meters;
  if (times.elapsedSeconds !== null) {
    ours.timer = times.elapsedSeconds - times.pausedSeconds;
    if (meters !== null && ours.timer > 0) ours.avgSpeed = meters / ours.timer;
  }
  const speed = recordedSpeedRange(columns);
  if (speed !== null) ours.maxSpeed = speed.max;
  const stat = (values: PointColumns['c'], zeros: Zeros, bounds: readonly [number, number]) =>
    channelStats(columns, [{ values, zeros, bounds }], times.holdSeconds)[0] ?? null;
  const heartRate = stat(columns.h, 'skip', PLAUSIBLE.heartRate);
  const power = stat(columns.p, 'keep', PLAUSIBLE.power);
  const cadence = stat(columns.c, 'keep', PLAUSIBLE.cadence);
  if (heartRate !== null) Object.assign(ours, { avgHeartRate: heartRate.avg, maxHeartRate: heartRate.max });
  if (power !== null) Object.assign(ours, { avgPower: power.avg, maxPower: power.max });
  if (cadence !== null) Object.assign(ours, { avgCadence: cadence.avg, maxCadence: cadence.max });
  const powerWithoutZeros = stat(columns.p, 'skip-in-average', PLAUSIBLE.power);
  const cadenceWithoutZeros = stat(columns.c, 'skip-in-average', PLAUSIBLE.cadence);
  return {
    ours,
    oursWithoutZeros: {
      ...(powerWithoutZeros === null ? {} : { avgPower: powerWithoutZeros.avg }),
      ...(cadenceWithoutZeros === null ? {} : { avgCadence: cadenceWithoutZeros.avg }),
    },
  };
}

function deviceValues(session: FitMessage): Partial<Record<Metric, number>> {
  const field = (...names: string[]): number | undefined => {
    for (const name of names) {
      const value = numberField(session, name);
      if (value !== undefined && Number.isFinite(value)) return value;
    }
    return undefined;
  };
  const values: Partial<Record<Metric, number | undefined>> = {
    distance: field('totalDistance'),
    timer: field('totalTimerTime'),
    avgSpeed: field('enhancedAvgSpeed', 'avgSpeed'),
    maxSpeed: field('enhancedMaxSpeed', 'maxSpeed'),
    avgHeartRate: field('avgHeartRate'),
    maxHeartRate: field('maxHeartRate'),
    avgPower: field('avgPower'),
    maxPower: field('maxPower'),
    maxCadence: field('maxCadence'),
    avgCadence: field('avgCadence'),
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * Whether ours agrees with the device on `metric`; null when the device does not state it. Average
 * power and cadence agree when either convention does (devices differ: many count zeros in, Strava
 * leaves them out of cadence). A value the device states and the points lack agrees only when the
 * device's is zero (a session that says 0 W for a ride without a power meter).
 */
export function agrees(comparison: Comparison, metric: Metric): boolean | null {
  const device = comparison.device[metric];
  if (device === undefined) return null;
  const candidates = oursBothWays(comparison, metric).filter((value) => value !== undefined);
  if (candidates.length === 0) return device === 0;
  const { share, absolute } = TOLERANCES[metric];
  let allowed = Math.max(share * Math.abs(device), absolute);
  const timer = comparison.device.timer;
  if (metric === 'avgSpeed' && timer !== undefined && timer > 0) {
    // distance ÷ timer carries the timer's whole-second resolution.
    allowed = Math.max(allowed, (Math.abs(device) * TOLERANCES.timer.absolute) / timer);
  }
  return candidates.some((ours) => Math.abs(ours - device) <= allowed + 1e-9);
}

function oursBothWays(comparison: Comparison, metric: Metric): Array<number | undefined> {
  const withZeros = comparison.ours[metric];
  return (BOTH_CONVENTIONS as readonly Metric[]).includes(metric)
    ? [withZeros, comparison.oursWithoutZeros[metric as (typeof BOTH_CONVENTIONS)[number]]]
    : [withZeros];
}

/** Every comparison of every FIT file in `corpus/fit`. */
export function compareCorpus(corpusDir: string): Comparison[] {
  const dir = join(corpusDir, 'fit');
  return readdirSync(dir)
    .sort()
    .flatMap((name) => compareFile(name, new Uint8Array(readFileSync(join(dir, name)))));
}

const UNITS: Readonly<Record<Metric, [string, (value: number) => string]>> = {
  distance: ['km', (value) => (value / 1000).toFixed(3)],
  timer: ['s', (value) => value.toFixed(0)],
  avgSpeed: ['km/h', (value) => (value * 3.6).toFixed(2)],
  maxSpeed: ['km/h', (value) => (value * 3.6).toFixed(2)],
  avgHeartRate: ['bpm', (value) => value.toFixed(1)],
  maxHeartRate: ['bpm', (value) => value.toFixed(0)],
  avgPower: ['W', (value) => value.toFixed(1)],
  maxPower: ['W', (value) => value.toFixed(0)],
  maxCadence: ['rpm', (value) => value.toFixed(0)],
  avgCadence: ['rpm', (value) => value.toFixed(1)],
};

/** The comparison as a Markdown table: "ours / device" per metric, a mark where they disagree. */
export function comparisonTable(comparisons: readonly Comparison[]): string {
  const header = ['file', 'session', ...METRICS.map((metric) => `${metric} (${UNITS[metric][0]})`)];
  const rows = comparisons.map((comparison) => [
    comparison.file.replace(/\.fit$/, ''),
    String(comparison.session),
    ...METRICS.map((metric) => {
      const [, format] = UNITS[metric];
      const device = comparison.device[metric];
      if (device === undefined) return '';
      const ours = oursBothWays(comparison, metric)
        .map((value) => (value === undefined ? '–' : format(value)))
        .join(' | ');
      const verdict = agrees(comparison, metric);
      return `${ours} / ${format(device)}${verdict === false ? ' ✗' : ''}`;
    }),
  ]);
  const agreeing = METRICS.map((metric) => {
    const verdicts = comparisons.map((comparison) => agrees(comparison, metric)).filter((v) => v !== null);
    return `${verdicts.filter(Boolean).length}/${verdicts.length}`;
  });
  const lines = [header, header.map(() => '---'), ...rows, ['agree', '', ...agreeing]];
  return lines.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const repository = resolve(fileURLToPath(import.meta.url), '../../../..');
  const corpus = process.argv[2] ?? process.env['RIDEPORT_CORPUS'] ?? resolve(repository, '../shared/corpus');
  console.log('ours / device; average power and cadence: with zeros | without zeros / device\n');
  console.log(comparisonTable(compareCorpus(corpus)));
}
