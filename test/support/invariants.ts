import { TRACK_POINT_KEYS, type Track } from '../../packages/ridefile/src/model.js';

/** What must hold for every point of every track, whatever the file (design.md, `TrackPoint`). */
export function invariantViolations(track: Track): string[] {
  const problems: string[] = [];
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
