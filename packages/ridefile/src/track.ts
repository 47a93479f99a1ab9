import type { Column, PointColumns } from './columns.js';
import type { TrackDraft } from './draft.js';
import { RideFileWarningCode } from './errors.js';
import { boundedFileText, boundedMessage, boundedWarnings } from './file-text.js';
import {
  TRACK_POINT_KEYS,
  type ClockJump,
  type ColumnarTrack,
  type TrackColumns,
  type TrackDetails,
  type SensorDevice,
  type Track,
  type TrackPoint,
  type TrackSensors,
  type Warning,
} from './model.js';
import { lapsFromPoints } from './laps.js';
import { summarize } from './summary.js';

/**
 * Turns a reader's draft into the public `Track`: summary from the columns, then the points, built from
 * the same finished rows as `finishColumnarTrack`'s columns (issue 21: one code path for both outputs).
 * `warnings`: what was wrong with the file where this track was read (see `Track.warnings`). Every text
 * of the track is bounded and cleaned here, where it leaves the library (file-text.ts, issue 17); a
 * text shortened adds a warning to the track's own. Consumes the draft: its columns become the output's
 * rows (finish a draft once).
 */
export function finishTrack(draft: TrackDraft, warnings: Warning[] = []): Track {
  const { head, tail } = finishDetails(draft, warnings);
  return { ...head, points: buildPoints(draft.columns), ...tail };
}

/** As `finishTrack`, with the samples as typed columns: no point object is made. */
export function finishColumnarTrack(draft: TrackDraft, warnings: Warning[] = []): ColumnarTrack {
  const { head, tail } = finishDetails(draft, warnings);
  return { ...head, columns: trackColumns(draft.columns), ...tail };
}

/**
 * Everything of a track but its samples, split where the samples go (the keys keep the order they have
 * always had). The summary and the laps read the recorded values first; then the rows become the
 * output's (`PointColumns.finishRows`). The summary's working arrays (as long as the columns) can be
 * collected before the output takes its memory (issue 2, peak memory).
 */
function finishDetails(
  draft: TrackDraft,
  warnings: Warning[],
): {
  head: Pick<TrackDetails, 'kind' | 'name' | 'sport' | 'subSport' | 'startTime' | 'recording'>;
  tail: Pick<TrackDetails, 'laps' | 'sensors' | 'summary' | 'warnings'>;
} {
  const { columns } = draft;
  const own = [...(draft.warnings ?? [])];
  const name = boundedFileText('name', draft.name, own);
  const sport = boundedFileText('sport', draft.sport, own);
  const subSport = boundedFileText('subSport', draft.subSport, own);
  const device = boundedFileText('device', draft.device, own);
  const serialNumber = boundedFileText('serialNumber', draft.recording.serialNumber, own);
  const sensors = boundedSensors(draft.sensors, own);
  const summary = summarize(columns, { ...draft, sport, device }, warnings);
  // The file's laps only where its totals describe the points (issue 16); else computed from them.
  const laps = summary.recordedDescribesPoints
    ? draft.laps
    : lapsFromPoints(columns, draft.laps, draft, warnings);
  const startTime = draft.startTime ?? firstTime(columns);
  columns.finishRows();
  summary.pointCount = columns.length;
  const clockWarning = clockJumpWarning(summary.clockJumps);
  const trackWarnings = [...warnings, ...own, ...(clockWarning === null ? [] : [clockWarning])];
  return {
    head: {
      kind: draft.kind,
      name,
      sport,
      subSport,
      startTime,
      recording: { ...draft.recording, serialNumber },
    },
    tail: { laps, sensors, summary, warnings: boundedWarnings(trackWarnings) },
  };
}

/** The finished rows as the public columns: each trimmed to the rows, a channel without values left out. */
function trackColumns(columns: PointColumns): TrackColumns {
  const channels = columns.trimmedChannels();
  const result: TrackColumns = { length: columns.length };
  TRACK_POINT_KEYS.forEach((key, slot) => {
    const column = channels[slot];
    if (column === null || column === undefined) return;
    // x y e t s d are always Float64 (PointColumns); c h p T are Float32 unless widened.
    if (key === 'c' || key === 'h' || key === 'p' || key === 'T') result[key] = column;
    else result[key] = column as Float64Array;
  });
  return result;
}

/** The sensors with every text bounded; their reason is our sentence, which may quote the file. */
function boundedSensors(sensors: TrackSensors, warnings: Warning[]): TrackSensors {
  const sensor = (text: string | null): string | null => boundedFileText('sensor', text, warnings);
  return {
    wheelSensor: sensors.wheelSensor,
    wheelSensorReason: boundedMessage(sensors.wheelSensorReason),
    devices: sensors.devices.map((device): SensorDevice => ({
      index: device.index,
      sourceType: sensor(device.sourceType),
      deviceType: sensor(device.deviceType),
      manufacturer: sensor(device.manufacturer),
      product: sensor(device.product),
      name: sensor(device.name),
    })),
  };
}

/** Says, once per track, that the device clock jumped and that the times leave the jump out. */
function clockJumpWarning(jumps: readonly ClockJump[]): Warning | null {
  const [first] = jumps;
  if (first === undefined) return null;
  const direction = first.seconds > 0 ? 'forward' : 'back';
  const more = jumps.length > 1 ? ` (and ${jumps.length - 1} more time${jumps.length > 2 ? 's' : ''})` : '';
  return {
    code: RideFileWarningCode.CLOCK_JUMP,
    message:
      `the device clock jumped ${spanInWords(Math.abs(first.seconds))} ${direction} at ` +
      `${new Date(first.at * 1000).toISOString().replace('.000Z', 'Z')}${more}; ` +
      'the jump is left out of the elapsed, timer and moving times',
  };
}

/** "27 days", "3 hours", "14 years": the largest unit, rounded. */
function spanInWords(seconds: number): string {
  const units: Array<[string, number]> = [
    ['year', 365.25 * 86_400],
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ];
  for (const [unit, size] of units) {
    if (seconds >= size || unit === 'second') {
      const count = Math.round(seconds / size);
      return `${count} ${unit}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

/** Builds the points of rows [from, to), which all carry exactly the keys of one mask, into `points` from index `at` on. */
type RunBuilder = (
  x: Float64Array,
  y: Float64Array,
  e: Float64Array,
  t: Float64Array,
  c: Column,
  h: Column,
  p: Column,
  s: Float64Array,
  d: Float64Array,
  T: Column,
  from: number,
  to: number,
  points: TrackPoint[],
  at: number,
) => void;

/**
 * One `TrackPoint` per finished row (`PointColumns.finishRows`: whole seconds, the wheel-sensor rule,
 * no empty row), keys in the specification's order and only where the row has a value.
 *
 * Rows are handed out in runs of the same key set (a recording keeps its channels for long stretches),
 * each built by a loop made for that key set: one call per run instead of one per point, and no
 * number passes through a call (a double argument is a heap allocation per value).
 */
function buildPoints(columns: PointColumns): TrackPoint[] {
  const { x, y, e, t, c, h, p, s, d, T } = columns;
  const n = columns.length;
  // First the runs (start row, end row, mask), so each run is built by one call.
  let runs = new Int32Array(48);
  let runCount = 0;
  let runMask = 0;
  let runStart = 0;
  for (let i = 0; i <= n; i++) {
    let mask = -1; // past the last row: ends the last run
    if (i < n) {
      mask =
        (Number.isNaN(x[i]!) ? 0 : 0b11) |
        (Number.isNaN(e[i]!) ? 0 : 1 << 2) |
        (Number.isNaN(t[i]!) ? 0 : 1 << 3) |
        (Number.isNaN(c[i]!) ? 0 : 1 << 4) |
        (Number.isNaN(h[i]!) ? 0 : 1 << 5) |
        (Number.isNaN(p[i]!) ? 0 : 1 << 6) |
        (Number.isNaN(s[i]!) ? 0 : 1 << 7) |
        (Number.isNaN(d[i]!) ? 0 : 1 << 8) |
        (Number.isNaN(T[i]!) ? 0 : 1 << 9);
      if (mask === runMask) continue;
    }
    if (i > runStart) {
      if (runCount * 3 === runs.length) {
        const grown = new Int32Array(runs.length * 2);
        grown.set(runs);
        runs = grown;
      }
      runs[runCount * 3] = runStart;
      runs[runCount * 3 + 1] = i;
      runs[runCount * 3 + 2] = runMask;
      runCount += 1;
    }
    runMask = mask;
    runStart = i;
  }

  // Sized once and filled in order: no regrowth of a large array while it is built.
  const points = new Array<TrackPoint>(n);
  for (let run = 0; run < runCount; run++) {
    const from = runs[run * 3]!;
    const to = runs[run * 3 + 1]!;
    runBuilder(runs[run * 3 + 2]!)(x, y, e, t, c, h, p, s, d, T, from, to, points, from);
  }
  return points;
}

const builders = new Map<number, RunBuilder>();

/**
 * The loop that builds the points of one key set, each as one object literal. Creating objects key by
 * key costs several times more (every added key changes the object's hidden class and grows its property
 * store), and points are most of the parse time of a large file. The loop is generated once per key
 * combination from the fixed key list (no input reaches the generated code); where code generation is
 * forbidden (a browser page with a strict CSP), points are built key by key instead.
 */
function runBuilder(mask: number): RunBuilder {
  let builder = builders.get(mask);
  if (builder === undefined) {
    builder = generatedRunBuilder(mask) ?? incrementalRunBuilder(mask);
    builders.set(mask, builder);
  }
  return builder;
}

/** Channels that hold whole numbers in most files (FIT stores them as integers). */
const MOSTLY_INTEGER_KEYS: ReadonlySet<string> = new Set(['c', 'h', 'p', 'T']);

function generatedRunBuilder(mask: number): RunBuilder | null {
  const keys = TRACK_POINT_KEYS.filter((_, bit) => (mask & (1 << bit)) !== 0);
  const reads = keys
    .filter((key) => MOSTLY_INTEGER_KEYS.has(key))
    .map((key) => `  const ${key}v = ${key}[i];`);
  const entries = keys.map((key) => {
    // The same number, as a small integer where it is one (and not -0): see `integerOrSelf`.
    if (MOSTLY_INTEGER_KEYS.has(key))
      return `${key}: (${key}v | 0) === ${key}v && (${key}v !== 0 || 1 / ${key}v > 0) ? ${key}v | 0 : ${key}v`;
    return `${key}: ${key}[i]`;
  });
  const body = [
    'for (let i = from; i < to; i++) {',
    ...reads,
    `  points[at++] = { ${entries.join(', ')} };`,
    '}',
  ].join('\n');
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- fixed key names only; see runBuilder
    return new Function(...TRACK_POINT_KEYS, 'from', 'to', 'points', 'at', body) as RunBuilder;
  } catch {
    return null;
  }
}

function incrementalRunBuilder(mask: number): RunBuilder {
  return (x, y, e, t, c, h, p, s, d, T, from, to, points, at) => {
    for (let i = from; i < to; i++) {
      const point: TrackPoint = {};
      if (mask & (1 << 0)) point.x = x[i]!;
      if (mask & (1 << 1)) point.y = y[i]!;
      if (mask & (1 << 2)) point.e = e[i]!;
      if (mask & (1 << 3)) point.t = t[i]!;
      if (mask & (1 << 4)) point.c = integerOrSelf(c[i]!);
      if (mask & (1 << 5)) point.h = integerOrSelf(h[i]!);
      if (mask & (1 << 6)) point.p = integerOrSelf(p[i]!);
      if (mask & (1 << 7)) point.s = s[i]!;
      if (mask & (1 << 8)) point.d = d[i]!;
      if (mask & (1 << 9)) point.T = integerOrSelf(T[i]!);
      points[at++] = point;
    }
  };
}

/**
 * `value` itself, produced as a small integer when it is a whole number (other than -0). The number is
 * the same; what changes is how the engine stores it: a value read from a Float64Array arrives boxed
 * (a heap object of its own) and makes the property a "double" field, which boxes every later value
 * too, whole or not. Produced from an int32, cadence, heart rate, power and temperature stay unboxed
 * in the point: 3 objects per typical point instead of 7, for the allocator and the garbage collector.
 */
function integerOrSelf(value: number): number {
  return (value | 0) === value && (value !== 0 || 1 / value > 0) ? value | 0 : value;
}

function firstTime(columns: PointColumns): number | null {
  for (let i = 0; i < columns.length; i++) {
    const time = columns.t[i]!;
    if (!Number.isNaN(time)) return Math.floor(time);
  }
  return null;
}
