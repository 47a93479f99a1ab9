/**
 * The input of "create a ride from points" (docs/integrators/api.md, Track point; docs/contributors/decisions.md §5): the
 * `track_points` parameter, at the top level or inside `trip`, as an array or as a JSON string of one,
 * and the optional `trip[name]`, `trip[description]`, `trip[visibility]` (0 public, 1 private, 2 friends).
 *
 * Every problem is found before anything is stored, and all of them are answered at once in one 422
 * (docs/contributors/decisions.md §2: "a 422 lists every missing or invalid field at once"; §5: "every bad point is named
 * in the error"). Points with the same problem are named together (`track_points[3, 7..9]: …`), so an
 * upload with thousands of bad points gets a readable message that still names each of them. No
 * problem's text holds a semicolon: the legacy `{"error"}` joins the problems with "; ".
 *
 * The rules, beyond the specification's (t in whole seconds, x in -180..180, y in -90..90):
 * - every value is a JSON number; `null` means "not known", like a missing key;
 * - `t` lies between the start of GPS time (1980-01-06) and a day past the server's clock; a value that
 *   is such a time in milliseconds is called out as milliseconds, with the value in seconds to send;
 * - `x` and `y` come together (a position has both); cadence, heart rate, power, speed and distance are
 *   not negative; a point has at least one of the ten keys (other keys are ignored);
 * - at least one point has a time: the endpoint creates a ride (a trip), and a ride without any time is
 *   a route, which this endpoint does not make;
 * - at most `limits.pointsPerRequest` points (docs/contributors/decisions.md §7: 200,000).
 */
import { TRACK_POINT_KEYS, type TrackPoint, type TrackPointKey } from '@rideport/ridefile';
import type { Visibility } from '../db/schema.js';
import { isTooLong, TEXT_MAX_CHARS, tooLongWords } from '../store/index.js';
import type { LegacyParams } from './params.js';

/** GPS time began on 1980-01-06: no receiver recorded a ride before it. */
export const EARLIEST_POINT_SECONDS = 315_964_800;
/** How far past the server's clock a time may be (a device clock set a little ahead). */
export const FUTURE_LEEWAY_SECONDS = 24 * 60 * 60;

export interface PointLimits {
  /** at most this many points in one request */
  maxPoints: number;
  /** the server's clock, Unix seconds */
  nowSeconds: number;
}

export interface RideInput {
  points: TrackPoint[];
  name: string | null;
  description: string | null;
  /** undefined: not given (the store's default applies) */
  visibility: Visibility | undefined;
}

export type RideInputResult = ({ ok: true } & RideInput) | { ok: false; problems: string[] };

/** `trip[visibility]`: the legacy numbers, and the v1 words the records show (a Map: no inherited keys). */
const VISIBILITIES: ReadonlyMap<string, Visibility> = new Map([
  ['0', 'public'],
  ['1', 'private'],
  ['2', 'friends_only'],
  ['public', 'public'],
  ['private', 'private'],
  ['friends_only', 'friends_only'],
]);

const NON_NEGATIVE: ReadonlySet<TrackPointKey> = new Set(['c', 'h', 'p', 's', 'd']);
const MAX_SHOWN_VALUE_LENGTH = 40;

/** Reads the whole request: points and trip fields. */
export function readRideInput(params: LegacyParams, limits: PointLimits): RideInputResult {
  const problems: string[] = [];

  const topLevel = params.raw('track_points');
  const inTrip = params.raw('trip[track_points]');
  let points: TrackPoint[] = [];
  if (topLevel !== undefined && inTrip !== undefined) {
    problems.push('track_points was sent both at the top level and inside trip: send it once');
  } else if (topLevel === undefined && inTrip === undefined) {
    problems.push(
      'track_points is required: an array of track points, or a JSON string of one, at the top level or inside trip',
    );
  } else {
    const read = readTrackPoints(topLevel ?? inTrip, limits);
    if (read.ok) points = read.points;
    else problems.push(...read.problems);
  }

  const name = readText(params, 'trip[name]', TEXT_MAX_CHARS.assetName, problems);
  const description = readText(params, 'trip[description]', TEXT_MAX_CHARS.assetDescription, problems);
  const visibility = readVisibility(params, problems);

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, points, name, description, visibility };
}

/** `track_points` as sent (an array, or a JSON string of one) to checked points, or every problem. */
export function readTrackPoints(
  value: unknown,
  limits: PointLimits,
): { ok: true; points: TrackPoint[] } | { ok: false; problems: string[] } {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      // The parser's message quotes the input; the problem is said without echoing it.
      return { ok: false, problems: ['track_points is text but not JSON: send an array of track points'] };
    }
  }
  if (!Array.isArray(list)) {
    return {
      ok: false,
      problems: ['track_points must be an array of track points, or a JSON string of one'],
    };
  }
  if (list.length === 0) return { ok: false, problems: ['track_points holds no points'] };
  if (list.length > limits.maxPoints) {
    return {
      ok: false,
      problems: [
        `track_points holds ${list.length} points, but at most ${limits.maxPoints} are taken in one request`,
      ],
    };
  }
  const problems = new PointProblems();
  const latestSeconds = limits.nowSeconds + FUTURE_LEEWAY_SECONDS;
  const points: TrackPoint[] = [];
  let timed = false;
  for (let index = 0; index < list.length; index++) {
    const point = checkPoint(list[index], index, latestSeconds, problems);
    if (point === null) continue;
    if (point.t !== undefined) timed = true;
    points.push(point);
  }
  const found = problems.messages();
  if (!timed && found.length === 0) {
    found.push(
      'no track point has a time t: a ride needs times (whole seconds since the Unix epoch), and untimed points make a route, which this endpoint does not create',
    );
  }
  return found.length > 0 ? { ok: false, problems: found } : { ok: true, points };
}

/** One point checked; null when it has a problem (recorded in `problems`). */
function checkPoint(
  raw: unknown,
  index: number,
  latestSeconds: number,
  problems: PointProblems,
): TrackPoint | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.add(
      'object',
      index,
      () => 'is not a track point object such as {"x": 8.5, "y": 47.4, "t": 1717232400}',
    );
    return null;
  }
  const source = raw as Record<string, unknown>;
  const point: TrackPoint = {};
  let known = 0;
  let bad = false;
  for (const key of TRACK_POINT_KEYS) {
    const value = source[key];
    if (value === undefined || value === null) continue;
    known += 1;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.add(`number:${key}`, index, () => `${key} ${shown(value)} is not a number`);
      bad = true;
      continue;
    }
    const problem = valueProblem(key, value, latestSeconds);
    if (problem !== null) {
      problems.add(problem.group, index, problem.message);
      bad = true;
      continue;
    }
    point[key] = value;
  }
  if (known === 0) {
    problems.add('empty', index, () => `has none of the track point keys ${TRACK_POINT_KEYS.join(', ')}`);
    return null;
  }
  const hasX = source['x'] !== undefined && source['x'] !== null;
  const hasY = source['y'] !== undefined && source['y'] !== null;
  if (hasX !== hasY) {
    problems.add(
      'position',
      index,
      () => 'has only one of x (longitude) and y (latitude): a position needs both',
    );
    bad = true;
  }
  return bad ? null : point;
}

function valueProblem(
  key: TrackPointKey,
  value: number,
  latestSeconds: number,
): { group: string; message: () => string } | null {
  if (key === 'x' && (value < -180 || value > 180)) {
    return { group: 'x', message: () => `x (longitude) ${value} is outside -180..180` };
  }
  if (key === 'y' && (value < -90 || value > 90)) {
    return { group: 'y', message: () => `y (latitude) ${value} is outside -90..90` };
  }
  if (key === 't') return timeProblem(value, latestSeconds);
  if (NON_NEGATIVE.has(key) && value < 0) {
    return { group: `negative:${key}`, message: () => `${key} ${value} is negative` };
  }
  return null;
}

function timeProblem(value: number, latestSeconds: number): { group: string; message: () => string } | null {
  const asSeconds = value / 1000;
  if (value > latestSeconds && asSeconds >= EARLIEST_POINT_SECONDS && asSeconds <= latestSeconds) {
    return {
      group: 't:milliseconds',
      message: () =>
        `t ${value} is in milliseconds: t must be whole seconds since the Unix epoch (${Math.floor(asSeconds)}), never milliseconds`,
    };
  }
  if (value < EARLIEST_POINT_SECONDS || value > latestSeconds) {
    return {
      group: 't:range',
      message: () =>
        `t ${value} is not a plausible time: whole seconds since the Unix epoch, from ${EARLIEST_POINT_SECONDS} (1980-01-06) to ${latestSeconds} (a day past the server's clock)`,
    };
  }
  if (!Number.isInteger(value)) {
    return { group: 't:fraction', message: () => `t ${value} is not whole seconds since the Unix epoch` };
  }
  return null;
}

/**
 * Problems of points, grouped by kind: each group names all its points and describes the first one,
 * in the order the groups were first met.
 */
class PointProblems {
  readonly #groups = new Map<string, { indices: number[]; message: string }>();

  add(group: string, index: number, message: () => string): void {
    const found = this.#groups.get(group);
    if (found === undefined) this.#groups.set(group, { indices: [index], message: message() });
    else found.indices.push(index);
  }

  messages(): string[] {
    return [...this.#groups.values()].map(({ indices, message }) =>
      indices.length === 1
        ? `track_points[${indices[0]!}]: ${message}`
        : `track_points[${indexList(indices)}] (${indices.length} points, the values shown are those of [${indices[0]!}]): ${message}`,
    );
  }
}

/** Ascending indices as `3, 7..9, 12`. */
export function indexList(indices: readonly number[]): string {
  const parts: string[] = [];
  let start = indices[0]!;
  let end = start;
  for (let i = 1; i <= indices.length; i++) {
    const index = indices[i];
    if (index === end + 1) {
      end = index;
      continue;
    }
    parts.push(start === end ? String(start) : `${start}..${end}`);
    if (index !== undefined) {
      start = index;
      end = index;
    }
  }
  return parts.join(', ');
}

function shown(value: unknown): string {
  // The value came from JSON, so it has a JSON text.
  const text = JSON.stringify(value);
  return text.length > MAX_SHOWN_VALUE_LENGTH ? `${text.slice(0, MAX_SHOWN_VALUE_LENGTH)}…` : text;
}

/** An optional text field: null when absent or blank; a problem when not text or too long. */
function readText(params: LegacyParams, name: string, maxLength: number, problems: string[]): string | null {
  const value = params.raw(name);
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' && typeof value !== 'number') {
    problems.push(`${name} must be text`);
    return null;
  }
  const text = String(value).trim();
  if (isTooLong(text, maxLength)) {
    problems.push(tooLongWords(name, maxLength));
    return null;
  }
  return text === '' ? null : text;
}

function readVisibility(params: LegacyParams, problems: string[]): Visibility | undefined {
  const value = params.raw('trip[visibility]');
  if (value === undefined || value === null || value === '') return undefined;
  const visibility =
    typeof value === 'string' || typeof value === 'number'
      ? VISIBILITIES.get(String(value).trim())
      : undefined;
  if (visibility === undefined) {
    problems.push('trip[visibility] must be 0 (public), 1 (private) or 2 (friends)');
  }
  return visibility;
}
