/**
 * Text from files is bounded where it enters the output (issue 17, "Text from files is unbounded"): a
 * 200 MB `<name>` inside a 195 KB `.gpx.gz`, a 1 MB TCX `Creator/Name`, and every other text a GPX, TCX
 * or KML can carry come out as their start, with a RIDEFILE_TEXT_SHORTENED warning naming the field
 * and its length.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gpxGzWithLongName } from '../../../test/support/long-text.js';
import { RideFileWarningCode } from './errors.js';
import { parseRideFile } from './parse.js';

const scratch = mkdtempSync(join(tmpdir(), 'rideport-long-text-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const MEGABYTE = 1 << 20;

function shortened(warnings: readonly { code: string; message: string }[]): string[] {
  return warnings
    .filter((warning) => warning.code === RideFileWarningCode.TEXT_SHORTENED)
    .map((warning) => warning.message);
}

describe('a 200 MB <name> inside a .gpx.gz', () => {
  it('is read in a 64 MB heap: the name is its start, and a warning says how long it was', async () => {
    const gz = await gpxGzWithLongName(200);
    expect(gz.length).toBeLessThan(256 * 1024);
    const file = join(scratch, 'long-name.gpx.gz');
    writeFileSync(file, gz);
    // A heap far smaller than the name: holding it whole as a string, even once, runs out of memory.
    // (The gunzipped bytes are not on the heap.)
    const index = pathToFileURL(fileURLToPath(new URL('./index.ts', import.meta.url))).href;
    const script = `
      import { readFileSync } from 'node:fs';
      const { parseRideFile } = await import(${JSON.stringify(index)});
      const ride = parseRideFile(readFileSync(${JSON.stringify(file)}));
      const [track] = ride.tracks;
      process.stdout.write(JSON.stringify({ name: track.name, points: track.points.length, warnings: track.warnings }));`;
    const output = execFileSync(
      process.execPath,
      ['--max-old-space-size=64', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const result = JSON.parse(output) as {
      name: string;
      points: number;
      warnings: { code: string; message: string }[];
    };
    expect(result.name).toBe('x'.repeat(255));
    expect(result.points).toBe(10);
    expect(shortened(result.warnings)).toEqual([
      'the track name had 209,715,200 characters; only its first 255 were kept',
    ]);
  });
});

describe('every text of a GPX, TCX and KML file is bounded', () => {
  it('a TCX with a 1 MB Creator/Name: device and creator are its start, said on the ride', () => {
    const tcx = encode(
      `<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">` +
        `<Activities><Activity Sport="Biking"><Id>2024-06-01T08:00:00Z</Id><Lap StartTime="2024-06-01T08:00:00Z"><Track>` +
        `<Trackpoint><Time>2024-06-01T08:00:00Z</Time><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>` +
        `<Trackpoint><Time>2024-06-01T08:00:05Z</Time><HeartRateBpm><Value>125</Value></HeartRateBpm></Trackpoint>` +
        `</Track></Lap><Creator><Name>Edge ${'\u202e&lt;b&gt;'.repeat(MEGABYTE / 4)}</Name><UnitId>3891234567</UnitId></Creator>` +
        `</Activity></Activities></TrainingCenterDatabase>`,
    );
    const ride = parseRideFile(tcx);
    const [track] = ride.tracks;
    const expected = `Edge ${'<b>'.repeat(83)}<`; // the override characters go; 5 + 250 characters kept
    expect(track!.summary.device).toBe(expected);
    expect(ride.creator).toBe(expected);
    expect(track!.recording.serialNumber).toBe('3891234567');
    expect(shortened(track!.warnings)).toEqual([
      'the device name had 1,048,581 characters; only its first 255 were kept',
    ]);
  });

  it('a GPX creator, and one track of two with a long name: each warning goes where it belongs', () => {
    const points = '<trkseg><trkpt lat="47" lon="8"><time>2024-06-01T08:00:00Z</time></trkpt></trkseg>';
    const gpx = encode(
      `<gpx version="1.1" creator="${'c'.repeat(3 * MEGABYTE)}"><trk><name>Short</name>${points}</trk>` +
        `<trk><name>${'n'.repeat(2 * MEGABYTE)}</name>${points}</trk></gpx>`,
    );
    const ride = parseRideFile(gpx);
    expect(ride.creator).toBe('c'.repeat(255));
    const creatorWarning = "the file's creator had 3,145,728 characters; only its first 255 were kept";
    expect(shortened(ride.warnings)).toEqual([creatorWarning]);
    expect(ride.tracks.map((track) => track.name)).toEqual(['Short', 'n'.repeat(255)]);
    expect(shortened(ride.tracks[0]!.warnings)).toEqual([creatorWarning]);
    expect(shortened(ride.tracks[1]!.warnings)).toEqual([
      creatorWarning,
      'the track name had 2,097,152 characters; only its first 255 were kept',
    ]);
  });

  it('a KML placemark name and a TCX course name, cleaned of controls and lone surrogates', () => {
    const kml = encode(
      `<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>Loop\n\t${'\ud800'.repeat(2 * MEGABYTE)}</name>` +
        `<LineString><coordinates>8,47 8.001,47.001</coordinates></LineString></Placemark></kml>`,
    );
    const [route] = parseRideFile(kml).tracks;
    expect(route!.name).toBe(`Loop ${'\ufffd'.repeat(250)}`);
    expect(shortened(route!.warnings)).toEqual([
      'the track name had 2,097,158 characters; only its first 255 were kept',
    ]);

    const course = encode(
      `<TrainingCenterDatabase><Courses><Course><Name>${'r'.repeat(MEGABYTE)}</Name><Track>` +
        `<Trackpoint><Position><LatitudeDegrees>47</LatitudeDegrees><LongitudeDegrees>8</LongitudeDegrees></Position></Trackpoint>` +
        `</Track></Course></Courses></TrainingCenterDatabase>`,
    );
    const [courseTrack] = parseRideFile(course).tracks;
    expect(courseTrack!.name).toBe('r'.repeat(255));
    expect(shortened(courseTrack!.warnings)).toHaveLength(1);
  });

  it('a TCX Sport of a megabyte is no sport, and the wheel-sensor reason quoting it stays a sentence', () => {
    const tcx = encode(
      `<TrainingCenterDatabase><Activities><Activity Sport="${'Biking'.repeat(MEGABYTE / 6)}"><Id>2024-06-01T08:00:00Z</Id>` +
        `<Lap StartTime="2024-06-01T08:00:00Z"><Track><Trackpoint><Time>2024-06-01T08:00:00Z</Time>` +
        `<HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>`,
    );
    const [track] = parseRideFile(tcx).tracks;
    expect(track!.sport).toBeNull();
    expect(track!.sensors.wheelSensorReason.length).toBeLessThanOrEqual(1000);
    expect(track!.sensors.wheelSensorReason).toMatch(/^TCX: not a Biking activity \(Sport "BikingBiking.*…$/);
  });

  it('says a repeated problem three times at most: a KML of 5,000 mismatched tracks is one ride with 3 warnings', () => {
    const track =
      '<gx:Track><when>2024-06-01T08:00:00Z</when><when>2024-06-01T08:00:01Z</when><gx:coord>8 47</gx:coord></gx:Track>';
    const kml = encode(
      `<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark>` +
        `<gx:MultiTrack>${track.repeat(5000)}</gx:MultiTrack></Placemark></kml>`,
    );
    const ride = parseRideFile(kml);
    const skipped = ride.tracks[0]!.warnings.filter(
      (warning) => warning.code === RideFileWarningCode.SKIPPED_DATA,
    );
    expect(skipped).toHaveLength(3);
    expect(skipped[2]!.message).toMatch(/\(and 4,997 more like it\)$/);
    expect(ride.warnings).toHaveLength(3);
  });
});
