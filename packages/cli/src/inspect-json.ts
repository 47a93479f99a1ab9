/**
 * The `inspect --json` document (docs/contributors/architecture.md: "the `RideFile` without points, plus each track's point
 * count, channels present, wheel-sensor verdict and summary"). The verdict is `sensors.wheelSensor`
 * with `sensors.wheelSensorReason`, as the library's model names them.
 */
import { lastPointTime, type RideFile, type Track } from '@rideport/ridefile';
import { channelCounts, type ChannelCounts } from './channels.js';

export type InspectedTrack = Omit<Track, 'points'> & {
  pointCount: number;
  /** Unix seconds of the last point that has a time (where a cut-off file stops); null when none has */
  lastPointTime: number | null;
  channels: ChannelCounts;
};

export type InspectedRide = Omit<RideFile, 'tracks'> & { tracks: InspectedTrack[] };

export function inspectRide(ride: RideFile): InspectedRide {
  return {
    format: ride.format,
    creator: ride.creator,
    warnings: ride.warnings,
    tracks: ride.tracks.map(inspectTrack),
  };
}

function inspectTrack(track: Track): InspectedTrack {
  // Listed field by field so the points never slip in, and the counts sit beside the track's identity.
  return {
    kind: track.kind,
    name: track.name,
    sport: track.sport,
    subSport: track.subSport,
    startTime: track.startTime,
    recording: track.recording,
    pointCount: track.points.length,
    lastPointTime: lastPointTime(track.points),
    channels: channelCounts(track.points),
    sensors: track.sensors,
    laps: track.laps,
    summary: track.summary,
    warnings: track.warnings,
  };
}
