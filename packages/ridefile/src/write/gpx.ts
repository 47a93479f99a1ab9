import type { Track, TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import { ChunkBuilder, coordinateText, isoTime, numberText, xmlText } from './text.js';

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

export function* gpxChunks(
  input: WriteInput,
  options: WriteOptions = {},
): Generator<string, void, undefined> {
  const { tracks, creator } = writerInput(input, options);
  const out = new ChunkBuilder();
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
    const [container, point] = route ? ['rte', 'rtept'] : ['trk', 'trkpt'];
    out.add(`  <${container}>\n${trackHeader(track)}`);
    if (!route) out.add('    <trkseg>\n');
    const indent = route ? '    ' : '      ';
    for (const trackPoint of track.points) {
      if (trackPoint.x === undefined || trackPoint.y === undefined) continue;
      out.add(pointElement(point, trackPoint, indent));
      const chunk = out.take();
      if (chunk !== null) yield chunk;
    }
    if (!route) out.add('    </trkseg>\n');
    out.add(`  </${container}>\n`);
  }
  out.add('</gpx>\n');
  yield out.flush();
}

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

/** A positioned point, its children in the order of the GPX 1.1 schema (wptType) and TrackPointExtension v2. */
function pointElement(name: string, point: TrackPoint, indent: string): string {
  let body = '';
  if (point.e !== undefined) body += `<ele>${numberText(point.e)}</ele>`;
  if (point.t !== undefined) body += `<time>${isoTime(point.t)}</time>`;
  let tpx = '';
  if (point.T !== undefined) tpx += `<gpxtpx:atemp>${numberText(point.T)}</gpxtpx:atemp>`;
  if (point.h !== undefined) tpx += `<gpxtpx:hr>${Math.round(point.h)}</gpxtpx:hr>`;
  if (point.c !== undefined) tpx += `<gpxtpx:cad>${Math.round(point.c)}</gpxtpx:cad>`;
  if (point.s !== undefined) tpx += `<gpxtpx:speed>${numberText(point.s)}</gpxtpx:speed>`;
  if (point.p !== undefined || tpx !== '') {
    body += '<extensions>';
    if (point.p !== undefined) body += `<power xmlns="${POWER_NAMESPACE}">${numberText(point.p)}</power>`;
    if (tpx !== '') body += `<gpxtpx:TrackPointExtension>${tpx}</gpxtpx:TrackPointExtension>`;
    body += '</extensions>';
  }
  return `${indent}<${name} lat="${coordinateText(point.y!)}" lon="${coordinateText(point.x!)}">${body}</${name}>\n`;
}
