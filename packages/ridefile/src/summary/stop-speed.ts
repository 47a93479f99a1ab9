/**
 * The speed below which a track counts as stopped, by sport (issue 16: "a documented stop threshold per
 * sport, as FitTrackee and Strava do"). Moving time adds up the time spent faster than this.
 *
 * - running: a 30-minute mile (0.894 m/s, 3.2 km/h), Strava's published threshold for runs;
 * - cycling and e-biking: 3 km/h, below which a rider is balancing, not riding, and above the speed
 *   GPS drift shows while standing still;
 * - walking, hiking and mountaineering: 1 km/h, gpxpy's default, which FitTrackee keeps for slow sports
 *   with steep ground;
 * - swimming: 0.2 m/s (0.72 km/h): pool swimmers rest at 0, open-water GPS drifts slower;
 * - any other or unknown sport: 1.8 km/h (0.5 m/s).
 */

const KILOMETRES_PER_HOUR = 1 / 3.6;

const STOP_SPEEDS_METERS_PER_SECOND: Readonly<Record<string, number>> = {
  running: 1609.344 / 1800,
  cycling: 3 * KILOMETRES_PER_HOUR,
  e_biking: 3 * KILOMETRES_PER_HOUR,
  walking: 1 * KILOMETRES_PER_HOUR,
  hiking: 1 * KILOMETRES_PER_HOUR,
  mountaineering: 1 * KILOMETRES_PER_HOUR,
  swimming: 0.2,
};

export const DEFAULT_STOP_SPEED_METERS_PER_SECOND = 0.5;

export function stopSpeedMetersPerSecond(sport: string | null): number {
  return (
    (sport === null ? undefined : STOP_SPEEDS_METERS_PER_SECOND[sport]) ??
    DEFAULT_STOP_SPEED_METERS_PER_SECOND
  );
}
