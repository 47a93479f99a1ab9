import { lapFromSummary } from '../laps.js';
import type { Lap, Track, TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import { ChunkBuilder, coordinateText, isoTime, numberText, xmlText } from './text.js';

/**
 * TCX (TrainingCenterDatabase v2, issue 3): rides as Activity → Lap → Track, routes as Course.
 * `DistanceMeters` and `SensorState` Present only on points whose distance a wheel sensor measured (the
 * rule our reader applies back); speed and power in the ActivityExtension v2 TPX; lap summaries from
 * the file's own laps, or one lap for the whole track.
 *
 * What TCX cannot carry: temperature. The schema wants a time on every trackpoint; a point without one
 * (an untimed route) is written without `<Time>` rather than with an invented one, which Garmin's tools,
 * gpsbabel and ours read; that is the one way our TCX departs from the schema.
 */

const TCX_NAMESPACE = 'http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2';
const AX_NAMESPACE = 'http://www.garmin.com/xmlschemas/ActivityExtension/v2';

/**
 * TCX knows three sports (Sport_t). A track with wheel-sensor points is a ride on a bike whatever its
 * sport says (a multisport file's cycling leg): as Biking, its wheel points keep their speed and distance.
 */
function tcxSport(track: Track): 'Biking' | 'Running' | 'Other' {
  if (track.sport === 'cycling' || track.sport === 'e_biking') return 'Biking';
  if (track.points.some((point) => point.d !== undefined || point.s !== undefined)) return 'Biking';
  if (track.sport === 'running') return 'Running';
  return 'Other';
}

/** `writeTcx`'s text in pieces of about 64 K characters, to stream a long track. */
export function* tcxChunks(
  input: WriteInput,
  options: WriteOptions = {},
): Generator<string, void, undefined> {
  const { tracks, creator } = writerInput(input, options);
  const rides = tracks.filter((track) => track.kind === 'ride');
  const routes = tracks.filter((track) => track.kind === 'route');
  const out = new ChunkBuilder();
  out.add('<?xml version="1.0" encoding="UTF-8"?>\n');
  out.add(
    `<TrainingCenterDatabase xmlns="${TCX_NAMESPACE}" xmlns:ns3="${AX_NAMESPACE}"` +
      ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
      ` xsi:schemaLocation="${TCX_NAMESPACE} http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">\n`,
  );
  if (rides.length > 0) {
    out.add('  <Activities>\n');
    const ids = activityIds(rides);
    for (const [index, track] of rides.entries()) yield* activity(track, ids[index]!, creator, out);
    out.add('  </Activities>\n');
  }
  if (routes.length > 0) {
    out.add('  <Courses>\n');
    const names = courseNames(routes);
    for (const [index, track] of routes.entries()) yield* course(track, names[index]!, out);
    out.add('  </Courses>\n');
  }
  out.add('</TrainingCenterDatabase>\n');
  yield out.flush();
}

/**
 * TCX (TrainingCenterDatabase v2): rides as Activity → Lap → Track, routes as Course; speed and
 * power in the ActivityExtension v2. Temperature is left out (TCX has no place for it).
 */
export function writeTcx(input: WriteInput, options: WriteOptions = {}): string {
  return [...tcxChunks(input, options)].join('');
}

/**
 * Each activity's `<Id>`: its start time, which the schema requires to be unique in the file. Activities
 * that start in the same second (the copies in a chained FIT file) get the next free millisecond.
 */
function activityIds(rides: readonly Track[]): string[] {
  const used = new Set<number>();
  return rides.map((track) => {
    let milliseconds = (track.startTime ?? 0) * 1000;
    while (used.has(milliseconds)) milliseconds += 1;
    used.add(milliseconds);
    const iso = new Date(milliseconds).toISOString();
    return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  });
}

function* activity(
  track: Track,
  id: string,
  creator: string,
  out: ChunkBuilder,
): Generator<string, void, undefined> {
  const sport = tcxSport(track);
  const biking = sport === 'Biking';
  out.add(`    <Activity Sport="${sport}">\n`);
  out.add(`      <Id>${id}</Id>\n`);
  for (const { lap, points } of lapsWithPoints(track)) {
    out.add(`      <Lap StartTime="${isoTime(lap.startTime ?? track.startTime ?? 0)}">\n`);
    out.add(lapSummary(lap, points));
    out.add('        <Track>\n');
    for (const point of points) {
      out.add(trackpoint(point, biking, '          '));
      const chunk = out.take();
      if (chunk !== null) yield chunk;
    }
    out.add('        </Track>\n');
    out.add(lapExtensions(lap));
    out.add('      </Lap>\n');
  }
  const device = track.summary.device ?? creator;
  const unitId = tcxUnitId(track.recording.serialNumber);
  out.add(
    `      <Creator xsi:type="Device_t"><Name>${xmlText(device)}</Name><UnitId>${unitId}</UnitId><ProductID>0</ProductID>` +
      '<Version><VersionMajor>0</VersionMajor><VersionMinor>0</VersionMinor></Version></Creator>\n',
  );
  out.add('    </Activity>\n');
}

/**
 * `Creator/UnitId`: the device's serial number where it is known, as Garmin Connect's export writes it
 * (issue 16: it identifies the recording, so the export is recognised as the same ride); 0, which names
 * no unit, when it is unknown or not an xsd:unsignedInt.
 */
function tcxUnitId(serialNumber: string | null): string {
  if (serialNumber === null || !/^\d{1,10}$/.test(serialNumber)) return '0';
  return Number(serialNumber) <= 0xffffffff ? String(Number(serialNumber)) : '0';
}

/** Longest course name the schema allows (RestrictedToken_t); Garmin devices cut names there too. */
export const COURSE_NAME_CHARACTERS = 15;

/**
 * Each course's `<Name>`: the route's name cut to 15 characters, which the schema requires to be unique
 * in the file; a name already taken ends in " 2", " 3", … instead (still within 15 characters).
 */
export function courseNames(routes: readonly Track[]): string[] {
  const used = new Set<string>();
  return routes.map((track) => {
    const base = firstCharacters(track.name ?? 'Route', COURSE_NAME_CHARACTERS);
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = ` ${n}`;
      name = firstCharacters(base, COURSE_NAME_CHARACTERS - suffix.length) + suffix;
    }
    used.add(name);
    return name;
  });
}

/**
 * The first `count` characters of `text`, trailing spaces removed. Characters as XML Schema counts
 * them (code points), so a name is never cut inside a surrogate pair.
 */
function firstCharacters(text: string, count: number): string {
  return Array.from(text).slice(0, count).join('').trimEnd();
}

function* course(track: Track, name: string, out: ChunkBuilder): Generator<string, void, undefined> {
  const summary = track.summary;
  out.add('    <Course>\n');
  out.add(`      <Name>${xmlText(name)}</Name>\n`);
  out.add('      <Lap>\n');
  out.add(`        <TotalTimeSeconds>${summary.elapsedSeconds ?? 0}</TotalTimeSeconds>\n`);
  out.add(`        <DistanceMeters>${summary.distanceMeters ?? 0}</DistanceMeters>\n`);
  out.add('        <Intensity>Active</Intensity>\n');
  out.add('      </Lap>\n');
  out.add('      <Track>\n');
  for (const point of track.points) {
    out.add(trackpoint(point, false, '        '));
    const chunk = out.take();
    if (chunk !== null) yield chunk;
  }
  out.add('      </Track>\n');
  out.add('    </Course>\n');
}

/**
 * The track's points by lap: each lap takes the points from its start time to the next lap's. A track
 * without laps, or whose points have no times, is one lap summarised from the track.
 */
function lapsWithPoints(track: Track): Array<{ lap: Lap; points: readonly TrackPoint[] }> {
  const laps = track.laps.filter((lap) => lap.startTime !== null);
  const timed = track.points.every((point) => point.t !== undefined);
  if (laps.length === 0 || !timed) return [{ lap: wholeTrackLap(track), points: track.points }];
  const result = laps.map((lap) => ({ lap, points: [] as TrackPoint[] }));
  let index = 0;
  for (const point of track.points) {
    while (index + 1 < laps.length && point.t! >= laps[index + 1]!.startTime!) index++;
    result[index]!.points.push(point);
  }
  return result.filter(({ points }) => points.length > 0);
}

function wholeTrackLap(track: Track): Lap {
  return lapFromSummary(track.summary, track.startTime);
}

/** The lap's summary elements, in the order of ActivityLap_t. */
function lapSummary(lap: Lap, points: readonly TrackPoint[]): string {
  const first = points.find((point) => point.t !== undefined)?.t;
  const last = points.findLast((point) => point.t !== undefined)?.t;
  const seconds =
    lap.timerSeconds ?? lap.elapsedSeconds ?? (first !== undefined && last !== undefined ? last - first : 0);
  let xml = `        <TotalTimeSeconds>${seconds}</TotalTimeSeconds>\n`;
  xml += `        <DistanceMeters>${lap.distanceMeters ?? 0}</DistanceMeters>\n`;
  if (lap.maxSpeedMetersPerSecond !== null)
    xml += `        <MaximumSpeed>${lap.maxSpeedMetersPerSecond}</MaximumSpeed>\n`;
  xml += `        <Calories>${Math.round(lap.calories ?? 0)}</Calories>\n`;
  if (lap.avgHeartRateBpm !== null && lap.avgHeartRateBpm >= 1) {
    xml += `        <AverageHeartRateBpm><Value>${Math.round(lap.avgHeartRateBpm)}</Value></AverageHeartRateBpm>\n`;
  }
  if (lap.maxHeartRateBpm !== null && lap.maxHeartRateBpm >= 1) {
    xml += `        <MaximumHeartRateBpm><Value>${Math.round(lap.maxHeartRateBpm)}</Value></MaximumHeartRateBpm>\n`;
  }
  xml += '        <Intensity>Active</Intensity>\n';
  if (lap.avgCadenceRpm !== null) xml += `        <Cadence>${Math.round(lap.avgCadenceRpm)}</Cadence>\n`;
  xml += '        <TriggerMethod>Manual</TriggerMethod>\n';
  return xml;
}

function lapExtensions(lap: Lap): string {
  let lx = '';
  if (lap.avgSpeedMetersPerSecond !== null)
    lx += `<ns3:AvgSpeed>${lap.avgSpeedMetersPerSecond}</ns3:AvgSpeed>`;
  if (lap.avgPowerWatts !== null) lx += `<ns3:AvgWatts>${Math.round(lap.avgPowerWatts)}</ns3:AvgWatts>`;
  if (lap.maxPowerWatts !== null) lx += `<ns3:MaxWatts>${Math.round(lap.maxPowerWatts)}</ns3:MaxWatts>`;
  return lx === '' ? '' : `        <Extensions><ns3:LX>${lx}</ns3:LX></Extensions>\n`;
}

/** A trackpoint, its children in the order of Trackpoint_t; distance and speed only from a wheel sensor. */
function trackpoint(point: TrackPoint, biking: boolean, indent: string): string {
  let xml = `${indent}<Trackpoint>`;
  if (point.t !== undefined) xml += `<Time>${isoTime(point.t)}</Time>`;
  if (point.x !== undefined && point.y !== undefined) {
    xml += `<Position><LatitudeDegrees>${coordinateText(point.y)}</LatitudeDegrees><LongitudeDegrees>${coordinateText(point.x)}</LongitudeDegrees></Position>`;
  }
  if (point.e !== undefined) xml += `<AltitudeMeters>${numberText(point.e)}</AltitudeMeters>`;
  const wheelDistance = biking ? point.d : undefined;
  if (wheelDistance !== undefined) xml += `<DistanceMeters>${numberText(wheelDistance)}</DistanceMeters>`;
  if (point.h !== undefined && point.h >= 1)
    xml += `<HeartRateBpm><Value>${Math.round(point.h)}</Value></HeartRateBpm>`;
  if (point.c !== undefined) xml += `<Cadence>${Math.min(254, Math.round(point.c))}</Cadence>`;
  if (wheelDistance !== undefined) xml += '<SensorState>Present</SensorState>';
  let tpx = '';
  if (point.s !== undefined && biking) tpx += `<ns3:Speed>${numberText(point.s)}</ns3:Speed>`;
  if (point.p !== undefined) tpx += `<ns3:Watts>${Math.round(point.p)}</ns3:Watts>`;
  if (tpx !== '') xml += `<Extensions><ns3:TPX>${tpx}</ns3:TPX></Extensions>`;
  return `${xml}</Trackpoint>\n`;
}
