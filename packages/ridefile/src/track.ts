import type { PointColumns } from './columns.js';
import type { TrackDraft } from './draft.js';
import { TRACK_POINT_KEYS, type Track, type TrackPoint } from './model.js';
import { summarize } from './summary.js';

/** Turns a reader's draft into the public `Track`: summary from the columns, then the points. */
export function finishTrack(draft: TrackDraft): Track {
  const { columns } = draft;
  const points = buildPoints(columns);
  const summary = { ...summarize(columns, draft), pointCount: points.length };
  return {
    kind: draft.kind,
    name: draft.name,
    sport: draft.sport,
    subSport: draft.subSport,
    startTime: draft.startTime ?? firstTime(columns),
    points,
    laps: draft.laps,
    sensors: draft.sensors,
    summary,
  };
}

type PointFactory = (
  x: number,
  y: number,
  e: number,
  t: number,
  c: number,
  h: number,
  p: number,
  s: number,
  d: number,
  T: number,
) => TrackPoint;

/**
 * One `TrackPoint` per row, keys in the specification's order and only where known. `t` is floored to
 * whole seconds. `s` and `d` only on rows a wheel sensor measured, and `d` never goes backwards. A row
 * whose only values are a recorded speed or distance without a wheel sensor makes no point (`{}` says
 * nothing); those values still count in the summary.
 */
function buildPoints(columns: PointColumns): TrackPoint[] {
  const { x, y, e, t, c, h, p, s, d, T, wheel } = columns;
  const points: TrackPoint[] = [];
  let wheelDistance = -Infinity;
  let lastMask = -1;
  let factory: PointFactory = incrementalPoint(0);
  for (let i = 0; i < columns.length; i++) {
    const lon = x[i]!;
    const lat = y[i]!;
    const time = t[i]!;
    const isWheel = wheel[i] === 1;
    let distance = d[i]!;
    if (isWheel && !Number.isNaN(distance)) {
      if (distance > wheelDistance) wheelDistance = distance;
      distance = wheelDistance;
    }
    const hasPosition = !Number.isNaN(lon) && !Number.isNaN(lat);
    const mask =
      (hasPosition ? 0b11 : 0) |
      (Number.isNaN(e[i]!) ? 0 : 1 << 2) |
      (Number.isNaN(time) ? 0 : 1 << 3) |
      (Number.isNaN(c[i]!) ? 0 : 1 << 4) |
      (Number.isNaN(h[i]!) ? 0 : 1 << 5) |
      (Number.isNaN(p[i]!) ? 0 : 1 << 6) |
      (isWheel && !Number.isNaN(s[i]!) ? 1 << 7 : 0) |
      (isWheel && !Number.isNaN(distance) ? 1 << 8 : 0) |
      (Number.isNaN(T[i]!) ? 0 : 1 << 9);
    if (mask === 0) continue;
    if (mask !== lastMask) {
      factory = pointFactory(mask);
      lastMask = mask;
    }
    points.push(factory(lon, lat, e[i]!, Math.floor(time), c[i]!, h[i]!, p[i]!, s[i]!, distance, T[i]!));
  }
  return points;
}

const factories = new Map<number, PointFactory>();

/**
 * A function that builds a point with exactly the keys in `mask`, as one object literal. Creating
 * objects key by key costs 2–3× more (every added key changes the object's hidden class and grows its
 * property store), and points are most of the parse time of a large file. The literal is generated
 * once per key combination from the fixed key list (no input reaches the generated code); where code
 * generation is forbidden (a browser page with a strict CSP), points are built key by key instead.
 */
function pointFactory(mask: number): PointFactory {
  let factory = factories.get(mask);
  if (factory === undefined) {
    factory = generatedPoint(mask) ?? incrementalPoint(mask);
    factories.set(mask, factory);
  }
  return factory;
}

function generatedPoint(mask: number): PointFactory | null {
  const entries = TRACK_POINT_KEYS.filter((_, bit) => (mask & (1 << bit)) !== 0).map(
    (key) => `${key}: ${key}`,
  );
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- fixed key names only; see pointFactory
    return new Function(...TRACK_POINT_KEYS, `return { ${entries.join(', ')} };`) as PointFactory;
  } catch {
    return null;
  }
}

function incrementalPoint(mask: number): PointFactory {
  return (x, y, e, t, c, h, p, s, d, T) => {
    const point: TrackPoint = {};
    if (mask & (1 << 0)) point.x = x;
    if (mask & (1 << 1)) point.y = y;
    if (mask & (1 << 2)) point.e = e;
    if (mask & (1 << 3)) point.t = t;
    if (mask & (1 << 4)) point.c = c;
    if (mask & (1 << 5)) point.h = h;
    if (mask & (1 << 6)) point.p = p;
    if (mask & (1 << 7)) point.s = s;
    if (mask & (1 << 8)) point.d = d;
    if (mask & (1 << 9)) point.T = T;
    return point;
  };
}

function firstTime(columns: PointColumns): number | null {
  for (let i = 0; i < columns.length; i++) {
    const time = columns.t[i]!;
    if (!Number.isNaN(time)) return Math.floor(time);
  }
  return null;
}
