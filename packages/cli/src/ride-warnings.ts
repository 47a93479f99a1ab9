/**
 * A ride file's warnings on stderr, for every command that reads one (issue 35: `rideport convert` of a
 * cut-off file said only what it wrote, while `inspect` warned). Each in the words the dashboard shows
 * (@rideport/ridefile's warningWords), the code after them; the exit status stays as it is: the file
 * was read, and what was read was written.
 */
import { lastPointTime, warningWords, type RideFile, type Track, type WarnedTrack } from '@rideport/ridefile';
import type { CliIo } from './io.js';

/** The track a warning is said of: times in UTC, as `inspect` prints them. */
function warnedTrack(track: Track | undefined): WarnedTrack {
  const last = track === undefined ? null : lastPointTime(track.points);
  return {
    kind: track?.kind ?? 'ride',
    departedAtMs: track?.startTime == null ? null : track.startTime * 1000,
    lastPointAtMs: last === null ? null : last * 1000,
    timeZone: null,
  };
}

/** `rideport: convert ride.fit: warning: This file ends early: … (RIDEFILE_TRUNCATED)`, one per warning. */
export function warningLines(what: string, ride: RideFile): string[] {
  // The file's own warnings are said of its last track, where a cut or a bad checksum shows.
  const said = [
    ...ride.warnings.map((warning) => ({ warning, track: ride.tracks.at(-1) })),
    ...ride.tracks.flatMap((track) => track.warnings.map((warning) => ({ warning, track }))),
  ];
  const lines = said.map(
    ({ warning, track }) =>
      `rideport: ${what}: warning: ${warningWords(warning, warnedTrack(track)).sentence} (${warning.code})\n`,
  );
  // A cut-off file carries the warning twice, the file's and its last track's: said once.
  return [...new Set(lines)];
}

export function sayWarnings(io: CliIo, what: string, ride: RideFile): void {
  for (const line of warningLines(what, ride)) io.stderr.write(line);
}
