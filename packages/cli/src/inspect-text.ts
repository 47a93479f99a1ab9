/** The human-readable `inspect` report: what a person wants to know about a ride file at a glance. */
import { warningWords, type Stat, type WarnedTrack } from '@rideport/ridefile';

import { channelWords } from './channels.js';
import type { InspectedRide, InspectedTrack } from './inspect-json.js';
import { decimal, hoursMinutesSeconds, isoUtc, kilometres, kilometresPerHour } from './format.js';
import { DEFAULT_COLUMNS, wrapList } from './wrap.js';

const LABEL_WIDTH = 14;

function line(label: string, value: string, indent = ''): string {
  return `${indent}${label.padEnd(LABEL_WIDTH)}${value}\n`;
}

const whole = (n: number): string => decimal(n, 0);

/** min / avg / max, or "none" when the track has no such channel. */
function stat(value: Stat | null, unit: string, show: (n: number) => string = whole): string {
  if (value === null) return 'none';
  return `min ${show(value.min)} / avg ${show(value.avg)} / max ${show(value.max)} ${unit}`;
}

function orNone(value: number | null, show: (n: number) => string): string {
  return value === null ? 'none' : show(value);
}

/** The report, its longer lines (the channels) wrapped at `width`. */
export function inspectText(ride: InspectedRide, width = DEFAULT_COLUMNS): string {
  let text = line('format', ride.format.toUpperCase());
  text += line('creator', ride.creator ?? 'unknown');
  text += line('warnings', ride.warnings.length === 0 ? 'none' : String(ride.warnings.length));
  // The library's own messages, for whoever inspects a file; the code after them, never before (issue 16).
  for (const warning of ride.warnings) text += `  ${warning.message} (${warning.code})\n`;
  text += line('tracks', String(ride.tracks.length));
  ride.tracks.forEach((track, index) => {
    text += `\n${trackText(track, index + 1, ride.tracks.length, width)}`;
  });
  return text;
}

function trackText(track: InspectedTrack, number: number, count: number, width: number): string {
  const { summary, sensors } = track;
  const indent = '  ';
  const name = track.name === null ? '(unnamed)' : JSON.stringify(track.name);
  let text = `track ${number} of ${count}: ${track.kind} ${name}\n`;
  const sport = track.sport ?? 'unknown';
  text += line('sport', track.subSport === null ? sport : `${sport} / ${track.subSport}`, indent);
  text += line('start', orNone(track.startTime, isoUtc), indent);
  text += line('end', orNone(track.lastPointTime, isoUtc), indent);
  text += trackWarnings(track, indent);
  text += line('points', String(track.pointCount), indent);
  const column = ' '.repeat(indent.length + LABEL_WIDTH);
  const channels = channelWords(track.channels, track.pointCount);
  text += `${wrapList(channels, width, `${indent}${'channels'.padEnd(LABEL_WIDTH)}`, column).join('\n')}\n`;
  const distance = orNone(summary.distanceMeters, kilometres);
  const source = summary.distanceSource === null ? '' : ` (from ${summary.distanceSource})`;
  text += line('distance', `${distance}${summary.distanceMeters === null ? '' : source}`, indent);
  const jumps = summary.clockJumps.length;
  const jumped =
    jumps === 0 ? '' : ` (leaving out ${jumps === 1 ? 'a jump' : `${jumps} jumps`} of the device clock)`;
  text += line('elapsed', `${orNone(summary.elapsedSeconds, hoursMinutesSeconds)}${jumped}`, indent);
  const timerSource = summary.timerSource === null ? '' : ` (${TIMER_SOURCES[summary.timerSource]})`;
  text += line('timer', `${orNone(summary.timerSeconds, hoursMinutesSeconds)}${timerSource}`, indent);
  text += line('moving', orNone(summary.movingSeconds, hoursMinutesSeconds), indent);
  text += line('elevation', elevation(track), indent);
  text += line('speed', speed(track), indent);
  text += line('heart rate', stat(summary.heartRateBpm, 'bpm'), indent);
  text += line('cadence', stat(summary.cadenceRpm, 'rpm'), indent);
  const power = summary.powerWatts;
  const normalized = power?.normalized == null ? '' : `, normalized ${whole(power.normalized)} W`;
  text += line('power', `${stat(power, 'W')}${normalized}`, indent);
  text += line(
    'temperature',
    stat(summary.temperatureCelsius, '°C', (n) => decimal(n)),
    indent,
  );
  text += line('device', summary.device ?? 'unknown', indent);
  const verdict = sensors.wheelSensor ? 'yes' : 'no';
  text += line('wheel sensor', `${verdict}: ${sensors.wheelSensorReason}`, indent);
  text += line('laps', String(track.laps.length), indent);
  text += line('bounds', bounds(track), indent);
  return text;
}

/** Where the timer time comes from, in words (Summary.timerSource). */
const TIMER_SOURCES = {
  file: "the file's own total",
  pauses: 'less the pauses the file marks',
  points: 'the file marks no pause',
} as const;

function speed(track: InspectedTrack): string {
  const { speedMetersPerSecond, speedSource, speedSpikesIgnored } = track.summary;
  const range = stat(speedMetersPerSecond, 'km/h', kilometresPerHour);
  if (speedSource === null) return range;
  const spikes =
    speedSpikesIgnored === 0
      ? ''
      : `, ${speedSpikesIgnored} GPS spike${speedSpikesIgnored === 1 ? '' : 's'} left out`;
  return `${range} (range from ${speedSource === 'points' ? 'the recorded speed' : `the ${speedSource}`}${spikes})`;
}

/**
 * What was wrong with the file where this track was read, in the words the dashboard shows (times in
 * UTC, as `start` and `end` are), each followed by its code (issue 16).
 */
function trackWarnings(track: InspectedTrack, indent: string): string {
  const said: WarnedTrack = {
    kind: track.kind,
    departedAtMs: track.startTime === null ? null : track.startTime * 1000,
    lastPointAtMs: track.lastPointTime === null ? null : track.lastPointTime * 1000,
    timeZone: null,
  };
  return track.warnings
    .map((warning) => line('warning', `${warningWords(warning, said).sentence} (${warning.code})`, indent))
    .join('');
}

function elevation(track: InspectedTrack): string {
  const { elevationGainMeters: gain, elevationLossMeters: loss, elevationSource } = track.summary;
  if (gain === null && loss === null) return 'none';
  const parts = [orNone(gain, (m) => `+${decimal(m)} m`), orNone(loss, (m) => `-${decimal(m)} m`)];
  return `${parts.join(' / ')}${elevationSource === null ? '' : ` (from ${elevationSource})`}`;
}

function bounds(track: InspectedTrack): string {
  const box = track.summary.bounds;
  if (box === null) return 'none (no positions)';
  const at = (lat: number, lng: number): string => `${lat.toFixed(5)}, ${lng.toFixed(5)}`;
  return `SW ${at(box.swLat, box.swLng)}  NE ${at(box.neLat, box.neLng)}`;
}
