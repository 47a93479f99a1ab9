import type { Track, TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import { ChunkBuilder, coordinateText, isoTime, numberText } from './text.js';

/**
 * GeoJSON (RFC 7946, issue 3): a FeatureCollection with one Feature per track. Its geometry is a
 * LineString of the positioned points ([lon, lat, ele] when every one has an elevation, else [lon, lat]
 * with the elevations in `elevations`); the per-point channels sit in `properties.coordinateProperties`,
 * the shape @tmcw/togeojson consumers already read (`times`, `heart`, `cads`, `powers`, `atemps`), but
 * aligned one-to-one with the coordinates, with `null` where a point has no value. Wheel-sensor speed and
 * distance are `speeds` and `distances`. The summary is in `properties.summary`.
 *
 * What GeoJSON cannot carry: points without a position (a LineString is positions only).
 */

type ChannelName = 'times' | 'elevations' | 'heart' | 'cads' | 'powers' | 'atemps' | 'speeds' | 'distances';

const CHANNELS: ReadonlyArray<readonly [ChannelName, (point: TrackPoint) => string | null]> = [
  ['times', (point) => (point.t === undefined ? null : `"${isoTime(point.t)}"`)],
  ['elevations', (point) => numberOrNull(point.e)],
  ['heart', (point) => numberOrNull(point.h)],
  ['cads', (point) => numberOrNull(point.c)],
  ['powers', (point) => numberOrNull(point.p)],
  ['atemps', (point) => numberOrNull(point.T)],
  ['speeds', (point) => numberOrNull(point.s)],
  ['distances', (point) => numberOrNull(point.d)],
];

/** `writeGeoJson`'s text in pieces of about 64 K characters, to stream a long track. */
export function* geoJsonChunks(
  input: WriteInput,
  options: WriteOptions = {},
): Generator<string, void, undefined> {
  const { tracks, creator } = writerInput(input, options);
  const out = new ChunkBuilder();
  out.add(`{"type":"FeatureCollection","properties":{"creator":${JSON.stringify(creator)}},"features":[`);
  let firstFeature = true;
  for (const track of tracks) {
    out.add(firstFeature ? '\n' : ',\n');
    firstFeature = false;
    yield* feature(track, out);
  }
  out.add('\n]}\n');
  yield out.flush();
}

/**
 * GeoJSON (RFC 7946): a FeatureCollection with one LineString Feature per track, its channels in
 * `properties.coordinateProperties` and its summary in `properties.summary`. Points without a
 * position are left out.
 */
export function writeGeoJson(input: WriteInput, options: WriteOptions = {}): string {
  return [...geoJsonChunks(input, options)].join('');
}

function* feature(track: Track, out: ChunkBuilder): Generator<string, void, undefined> {
  const positioned = track.points.filter((point) => point.x !== undefined && point.y !== undefined);
  const withElevation = positioned.length > 0 && positioned.every((point) => point.e !== undefined);
  const properties = {
    name: track.name,
    kind: track.kind,
    sport: track.sport,
    subSport: track.subSport,
    startTime: track.startTime === null ? null : isoTime(track.startTime),
    device: track.summary.device,
    wheelSensor: track.sensors.wheelSensor,
    summary: track.summary,
  };
  out.add(`{"type":"Feature","properties":${JSON.stringify(properties).slice(0, -1)}`);
  const channels = CHANNELS.filter(
    ([name, value]) =>
      !(name === 'elevations' && withElevation) && positioned.some((point) => value(point) !== null),
  );
  if (positioned.length >= 2 && channels.length > 0) {
    out.add(',"coordinateProperties":{');
    for (let c = 0; c < channels.length; c++) {
      const [name, value] = channels[c]!;
      out.add(`${c === 0 ? '' : ','}"${name}":[`);
      for (let i = 0; i < positioned.length; i++) {
        out.add(`${i === 0 ? '' : ','}${value(positioned[i]!) ?? 'null'}`);
        const chunk = out.take();
        if (chunk !== null) yield chunk;
      }
      out.add(']');
    }
    out.add('}');
  }
  out.add('},"geometry":');
  if (positioned.length === 0) {
    out.add('null}');
    return;
  }
  if (positioned.length === 1) {
    out.add(`{"type":"Point","coordinates":${position(positioned[0]!, withElevation)}}}`);
    return;
  }
  out.add('{"type":"LineString","coordinates":[');
  for (let i = 0; i < positioned.length; i++) {
    out.add(`${i === 0 ? '' : ','}${position(positioned[i]!, withElevation)}`);
    const chunk = out.take();
    if (chunk !== null) yield chunk;
  }
  out.add(']}}');
}

function position(point: TrackPoint, withElevation: boolean): string {
  const lonLat = `${coordinateText(point.x!)},${coordinateText(point.y!)}`;
  return withElevation ? `[${lonLat},${numberText(point.e!)}]` : `[${lonLat}]`;
}

function numberOrNull(value: number | undefined): string | null {
  return value === undefined ? null : numberText(value);
}
