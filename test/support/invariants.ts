import type { Stat, Summary, Warning } from '../../packages/ridefile/src/model.js';
import { TRACK_POINT_KEYS, type Track } from '../../packages/ridefile/src/model.js';

/**
 * What must hold for every point and the summary of every track, whatever the file (docs/contributors/architecture.md,
 * `TrackPoint`; issue 16, the summary's invariants).
 */
export function invariantViolations(track: Track): string[] {
  const problems: string[] = [];
  if (track.summary.pointCount !== track.points.length) {
    problems.push(`summary.pointCount ${track.summary.pointCount} but ${track.points.length} points`);
  }
  problems.push(...summaryViolations(track.summary, track.warnings));
  problems.push(...positionViolations(track));
  problems.push(...lapViolations(track));
  let lastDistance = -Infinity;
  track.points.forEach((point, index) => {
    const say = (problem: string): void => {
      if (problems.length < 10) problems.push(`#${index} ${problem}: ${JSON.stringify(point)}`);
    };
    for (const [key, value] of Object.entries(point)) {
      if (!(TRACK_POINT_KEYS as readonly string[]).includes(key)) say(`unknown key ${key}`);
      if (typeof value !== 'number' || !Number.isFinite(value)) say(`${key} is not a finite number`);
    }
    if (point.t !== undefined && !Number.isInteger(point.t)) say('t is not whole seconds');
    // Seconds, never milliseconds: 2200-01-01 is 7258118400 s; today in milliseconds is 1.7e12.
    if (point.t !== undefined && (point.t < 0 || point.t > 7_258_118_400))
      say('t is not plausible Unix seconds');
    if ((point.x === undefined) !== (point.y === undefined)) say('half a position');
    if (point.x !== undefined && Math.abs(point.x) > 180) say('x out of range');
    if (point.y !== undefined && Math.abs(point.y) > 90) say('y out of range');
    if ((point.s !== undefined || point.d !== undefined) && !track.sensors.wheelSensor) {
      say('s/d without wheel-sensor evidence');
    }
    if (point.d !== undefined) {
      if (point.d < lastDistance) say('d goes backwards');
      lastDistance = point.d;
    }
  });
  return problems;
}

/**
 * The summary's positions describe the points: the first and last positioned points, a box holding
 * every position, none of them without a positioned point, and a track type other than `unknown` only
 * with two positions or more.
 */
export function positionViolations(track: Track): string[] {
  const problems: string[] = [];
  const { bounds, firstPosition, lastPosition, trackType } = track.summary;
  const positioned = track.points.filter((point) => point.x !== undefined && point.y !== undefined);
  const first = positioned[0];
  const last = positioned.at(-1);
  const same = (position: { lat: number; lng: number } | null, point: typeof first): boolean =>
    point === undefined
      ? position === null
      : position !== null && position.lat === point.y && position.lng === point.x;
  if (!same(firstPosition, first))
    problems.push(`firstPosition ${JSON.stringify(firstPosition)} is not the first point's`);
  if (!same(lastPosition, last))
    problems.push(`lastPosition ${JSON.stringify(lastPosition)} is not the last point's`);
  if ((bounds === null) !== (positioned.length === 0))
    problems.push(`bounds ${JSON.stringify(bounds)} for ${positioned.length} positions`);
  if (bounds !== null) {
    const outside = positioned.find(
      (point) =>
        point.y! < bounds.swLat ||
        point.y! > bounds.neLat ||
        point.x! < bounds.swLng ||
        point.x! > bounds.neLng,
    );
    if (outside !== undefined)
      problems.push(`position ${JSON.stringify(outside)} outside the bounds ${JSON.stringify(bounds)}`);
  }
  if (positioned.length < 2 && trackType !== 'unknown')
    problems.push(`track type ${trackType} with ${positioned.length} positions`);
  return problems;
}

/** Warnings after which the file's own totals never describe the points (issue 16). */
const INCOMPLETE = new Set(['RIDEFILE_TRUNCATED', 'RIDEFILE_MALFORMED_XML', 'RIDEFILE_SKIPPED_DATA']);

/**
 * The summary's invariants (issue 16): min ≤ avg ≤ max for every channel; moving ≤ elapsed and
 * timer ≤ elapsed, all whole seconds; distance ÷ moving time is the average speed and never above the
 * maximum; the file's own totals only for a file read whole; every value finite where present.
 */
export function summaryViolations(summary: Summary, warnings: readonly Warning[] = []): string[] {
  const problems: string[] = [];
  const say = (problem: string): void => {
    problems.push(problem);
  };
  const stats: Array<[string, Stat | null]> = [
    ['speed', summary.speedMetersPerSecond],
    ['heart rate', summary.heartRateBpm],
    ['cadence', summary.cadenceRpm],
    ['power', summary.powerWatts],
    ['temperature', summary.temperatureCelsius],
  ];
  for (const [name, stat] of stats) {
    if (stat === null) continue;
    if (![stat.min, stat.avg, stat.max].every(Number.isFinite))
      say(`${name} is not finite: ${JSON.stringify(stat)}`);
    if (!(stat.min <= stat.avg && stat.avg <= stat.max))
      say(`${name}: not min ≤ avg ≤ max: ${JSON.stringify(stat)}`);
  }
  const normalized = summary.powerWatts?.normalized ?? null;
  if (normalized !== null && summary.powerWatts !== null) {
    if (!(normalized >= summary.powerWatts.min && normalized <= summary.powerWatts.max)) {
      say(`normalized power ${normalized} outside ${summary.powerWatts.min}..${summary.powerWatts.max}`);
    }
  }

  const { elapsedSeconds: elapsed, timerSeconds: timer, movingSeconds: moving } = summary;
  for (const [name, value] of [
    ['elapsed', elapsed],
    ['timer', timer],
    ['moving', moving],
  ] as const) {
    if (value !== null && !(Number.isInteger(value) && value >= 0))
      say(`${name} time ${value} is not whole seconds ≥ 0`);
  }
  if (moving !== null && (elapsed === null || moving > elapsed))
    say(`moving ${moving} s beyond elapsed ${elapsed} s`);
  if (timer !== null && (elapsed === null || timer > elapsed))
    say(`timer ${timer} s beyond elapsed ${elapsed} s`);
  if ((timer === null) !== (summary.timerSource === null)) say('timer and its source disagree');

  const distance = summary.distanceMeters;
  if (distance !== null && !(Number.isFinite(distance) && distance >= 0)) say(`distance ${distance}`);
  const speed = summary.speedMetersPerSecond;
  if ((speed === null) !== (summary.speedSource === null)) say('speed and its source disagree');
  if (speed !== null) {
    if (distance === null || moving === null || !(moving > 0)) {
      say(`a speed without distance and moving time: ${distance} m, ${moving} s`);
    } else {
      const average = distance / moving;
      if (Math.abs(speed.avg - average) > 1e-9 * average)
        say(`average speed ${speed.avg} is not distance ÷ moving ${average}`);
      if (average > speed.max) say(`distance ÷ moving ${average} above the maximum speed ${speed.max}`);
    }
  }
  if (!(summary.speedSpikesIgnored >= 0)) say('speedSpikesIgnored below zero');
  for (const value of [summary.elevationGainMeters, summary.elevationLossMeters]) {
    if (value !== null && !(value >= 0)) say(`elevation ${value} below zero`);
  }

  const incomplete = warnings.some((warning) => INCOMPLETE.has(warning.code));
  if (incomplete) {
    for (const [name, source] of [
      ['distance', summary.distanceSource],
      ['timer', summary.timerSource],
      ['elevation', summary.elevationSource],
    ] as const) {
      if (source === 'file') say(`${name} from the file's totals although the file was not read whole`);
    }
  }
  if (summary.distanceSource === 'file' && summary.recorded?.distanceMeters !== distance) {
    say("distance from the file but not the file's");
  }
  return problems;
}

/**
 * Laps computed from the points (issue 16) obey what the summary obeys: averages within their maxima,
 * the timer within the elapsed time, and all laps together no further than the track.
 */
export function lapViolations(track: Track): string[] {
  const problems: string[] = [];
  if (!track.summary.recordedDescribesPoints && track.laps.some((lap) => lap.source === 'file')) {
    problems.push("the file's laps kept although its numbers do not describe the points");
  }
  let distance = 0;
  track.laps.forEach((lap, index) => {
    if (lap.source !== 'points') return;
    const pairs: Array<[string, number | null, number | null]> = [
      ['speed', lap.avgSpeedMetersPerSecond, lap.maxSpeedMetersPerSecond],
      ['heart rate', lap.avgHeartRateBpm, lap.maxHeartRateBpm],
      ['cadence', lap.avgCadenceRpm, lap.maxCadenceRpm],
      ['power', lap.avgPowerWatts, lap.maxPowerWatts],
    ];
    for (const [name, avg, max] of pairs) {
      if (avg !== null && max !== null && avg > max)
        problems.push(`lap ${index + 1}: ${name} average ${avg} above ${max}`);
    }
    if (lap.timerSeconds !== null && lap.elapsedSeconds !== null && lap.timerSeconds > lap.elapsedSeconds) {
      problems.push(`lap ${index + 1}: timer beyond elapsed`);
    }
    distance += lap.distanceMeters ?? 0;
  });
  const total = track.summary.distanceMeters;
  if (total !== null && distance > total * (1 + 1e-9) + 1e-6)
    problems.push(`laps cover ${distance} m of ${total} m`);
  return problems;
}
