import type { Track, TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import {
  AsciiChunkBuilder,
  asciiBytes,
  writeBytes,
  writeCoordinate,
  writeNumber,
  writeTime,
} from './ascii.js';
import { isoTime, xmlText } from './text.js';

/**
 * GPX 1.1 (issue 3), the form Strava and Garmin Connect read: rides as `<trk>`, routes as `<rte>` (written
 * first, as the schema orders them);
 * heart rate, cadence, air temperature and wheel-sensor speed in Garmin's TrackPointExtension v2;
 * power as `<power>` in the point's extensions.
 *
 * `<power>` is the form Strava writes and Strava and Garmin Connect read, but in the GPX namespace it
 * breaks the GPX 1.1 schema (extensions must come from another namespace). So it is written as
 * `<power xmlns="urn:rideport:power">`: the same tag text for readers that match the name, a namespace
 * of its own for the schema (validated laxly: nothing to look up), and any reader that matches by local
 * name (ours included) reads it.
 *
 * What GPX cannot carry: points without a position (a GPX point must have lat and lon) are left out;
 * distance has no place; and nothing in GPX says a speed came from a wheel sensor, so readers (ours
 * included) treat the written speed as recorded, not measured by a wheel.
 */

const GPX_NAMESPACE = 'http://www.topografix.com/GPX/1/1';
const TPX_NAMESPACE = 'http://www.garmin.com/xmlschemas/TrackPointExtension/v2';
const POWER_NAMESPACE = 'urn:rideport:power';

/** `writeGpx`'s text in pieces of about 64 K characters, to stream a long track. */
export function* gpxChunks(
  input: WriteInput,
  options: WriteOptions = {},
): Generator<string, void, undefined> {
  const { tracks, creator } = writerInput(input, options);
  const out = new AsciiChunkBuilder();
  const trackPoints = new PointGlues('trkpt', '      ');
  const routePoints = new PointGlues('rtept', '    ');
  out.add('<?xml version="1.0" encoding="UTF-8"?>\n');
  out.add(
    `<gpx version="1.1" creator="${xmlText(creator)}" xmlns="${GPX_NAMESPACE}" xmlns:gpxtpx="${TPX_NAMESPACE}"` +
      ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
      ` xsi:schemaLocation="${GPX_NAMESPACE} http://www.topografix.com/GPX/1/1/gpx.xsd` +
      ` ${TPX_NAMESPACE} https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">\n`,
  );
  out.add(metadata(tracks));
  // The schema orders a GPX file's content: every <rte> before every <trk>.
  const routesFirst = [
    ...tracks.filter((track) => track.kind === 'route'),
    ...tracks.filter((track) => track.kind !== 'route'),
  ];
  for (const track of routesFirst) {
    const route = track.kind === 'route';
    const container = route ? 'rte' : 'trk';
    out.add(`  <${container}>\n${trackHeader(track)}`);
    if (!route) out.add('    <trkseg>\n');
    const glues = route ? routePoints : trackPoints;
    for (const point of track.points) {
      if (point.x === undefined || point.y === undefined) continue;
      // take() left less than CHUNK_CHARACTERS in the buffer: a point's POINT_BYTES fit.
      writePoint(out, point, glues);
      const chunk = out.take();
      if (chunk !== null) yield chunk;
    }
    if (!route) out.add('    </trkseg>\n');
    out.add(`  </${container}>\n`);
  }
  out.add('</gpx>\n');
  yield out.flush();
}

/**
 * GPX 1.1: rides as `trk`, routes as `rte`; heart rate, cadence, temperature and wheel speed in
 * Garmin's TrackPointExtension v2, power as `<power>`. Points without a position are left out.
 */
export function writeGpx(input: WriteInput, options: WriteOptions = {}): string {
  return [...gpxChunks(input, options)].join('');
}

function metadata(tracks: readonly Track[]): string {
  const first = tracks[0];
  const parts: string[] = [];
  if (first?.name != null) parts.push(`    <name>${xmlText(first.name)}</name>\n`);
  if (first?.startTime != null) parts.push(`    <time>${isoTime(first.startTime)}</time>\n`);
  return parts.length === 0 ? '' : `  <metadata>\n${parts.join('')}  </metadata>\n`;
}

function trackHeader(track: Track): string {
  let header = '';
  if (track.name !== null) header += `    <name>${xmlText(track.name)}</name>\n`;
  if (track.sport !== null) header += `    <type>${xmlText(track.sport)}</type>\n`;
  return header;
}

/**
 * The text of a point around its values, for one set of channels present: `glue[0]` before the
 * latitude, `glue[1 + k]` after value k of POINT_VALUES up to the next value present (or to the end of
 * the point). The channels of a recording change seldom, so each point is its values with a few long
 * runs of constant text between them, copied as they are, instead of a branch and two tags per channel.
 */
type PointGlue = readonly Uint8Array[];

/** A point's values in the order they are written; the channels' bits in a glue mask follow this order. */
const POINT_VALUES = ['y', 'x', 'e', 't', 'p', 'T', 'h', 'c', 's'] as const;
const CHANNELS = POINT_VALUES.slice(2);

/**
 * The glue of points named `name` with the channels of `mask` (bit k: CHANNELS[k] present), children
 * in the order of the GPX 1.1 schema (wptType) and TrackPointExtension v2.
 */
function pointGlue(name: string, indent: string, mask: number): PointGlue {
  const has = (channel: (typeof CHANNELS)[number]): boolean =>
    (mask & (1 << CHANNELS.indexOf(channel))) !== 0;
  // Values left out have no glue after them: ''.
  const glue = [...POINT_VALUES, 'end'].map(() => '');
  let current = 0;
  let pending = '';
  const text = (piece: string): void => {
    pending += piece;
  };
  const value = (key: (typeof POINT_VALUES)[number]): void => {
    glue[current] = pending;
    pending = '';
    current = POINT_VALUES.indexOf(key) + 1;
  };
  const tagged = (open: string, channel: (typeof CHANNELS)[number], close: string): void => {
    if (!has(channel)) return;
    text(open);
    value(channel);
    text(close);
  };
  text(`${indent}<${name} lat="`);
  value('y');
  text('" lon="');
  value('x');
  text('">');
  tagged('<ele>', 'e', '</ele>');
  tagged('<time>', 't', '</time>');
  const tpx = has('T') || has('h') || has('c') || has('s');
  if (has('p') || tpx) {
    text('<extensions>');
    tagged(`<power xmlns="${POWER_NAMESPACE}">`, 'p', '</power>');
    if (tpx) {
      text('<gpxtpx:TrackPointExtension>');
      tagged('<gpxtpx:atemp>', 'T', '</gpxtpx:atemp>');
      tagged('<gpxtpx:hr>', 'h', '</gpxtpx:hr>');
      tagged('<gpxtpx:cad>', 'c', '</gpxtpx:cad>');
      tagged('<gpxtpx:speed>', 's', '</gpxtpx:speed>');
      text('</gpxtpx:TrackPointExtension>');
    }
    text('</extensions>');
  }
  text(`</${name}>\n`);
  glue[current] = pending;
  return glue.map(asciiBytes);
}

/** The glue of each channel set of one kind of point (`<trkpt>`, `<rtept>`), made when first needed. */
class PointGlues {
  readonly #glues: Array<PointGlue | undefined> = [];
  readonly #name: string;
  readonly #indent: string;

  constructor(name: string, indent: string) {
    this.#name = name;
    this.#indent = indent;
  }

  get(mask: number): PointGlue {
    return (this.#glues[mask] ??= pointGlue(this.#name, this.#indent, mask));
  }
}

/** A positioned point into `out`, which has room for it (POINT_BYTES). */
function writePoint(out: AsciiChunkBuilder, point: TrackPoint, glues: PointGlues): void {
  const { bytes } = out;
  const { e, t, p: power, T, h, c, s } = point;
  const glue = glues.get(
    (e === undefined ? 0 : 1) |
      (t === undefined ? 0 : 2) |
      (power === undefined ? 0 : 4) |
      (T === undefined ? 0 : 8) |
      (h === undefined ? 0 : 16) |
      (c === undefined ? 0 : 32) |
      (s === undefined ? 0 : 64),
  );
  let p = writeBytes(bytes, out.length, glue[0]!);
  p = writeBytes(bytes, writeCoordinate(bytes, p, point.y!), glue[1]!);
  p = writeBytes(bytes, writeCoordinate(bytes, p, point.x!), glue[2]!);
  if (e !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, e), glue[3]!);
  if (t !== undefined) p = writeBytes(bytes, writeTime(bytes, p, t), glue[4]!);
  if (power !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, power), glue[5]!);
  if (T !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, T), glue[6]!);
  // TrackPointExtension's hr and cad are unsignedByte: whole numbers.
  if (h !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, Math.round(h)), glue[7]!);
  if (c !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, Math.round(c)), glue[8]!);
  if (s !== undefined) p = writeBytes(bytes, writeNumber(bytes, p, s), glue[9]!);
  out.length = p;
}
