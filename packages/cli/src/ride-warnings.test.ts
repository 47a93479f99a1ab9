import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rideport, temporaryDirectory } from './test-support/run.js';

const TRUNCATED = 'fixtures/fit/truncated.fit';
const DAMAGED = 'fixtures/fit/bad-crc.fit';
const SOUND = 'fixtures/gpx/sample-ride.gpx';

const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

// Issue 35: `rideport convert` of a cut-off file exited 0 and said only what it wrote, while `inspect`
// warned: every command that reads a ride file says its warnings, in words, on stderr; the exit
// status stays 0, for the file was read.
describe("a ride file's warnings on stderr", () => {
  it('convert --out says each warning, once, before what it wrote', async () => {
    const out = temporaryDirectory();
    removals.push(out.remove);
    const run = await rideport(['convert', TRUNCATED, '--out', join(out.path, 'ride.gpx')]);
    expect(run.status).toBe(0);
    expect(run.stderrLines).toEqual([
      `rideport: convert ${TRUNCATED}: warning: This file ends early: the ride was read up to 08:00 UTC. (RIDEFILE_TRUNCATED)`,
      expect.stringMatching(/^wrote .*ride\.gpx: GPX 1\.1, 1 track, \d+ points$/),
    ]);
  });

  it('convert to stdout keeps stdout for the ride and says the warnings on stderr', async () => {
    const run = await rideport(['convert', DAMAGED, '--to', 'csv']);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('warning');
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toMatch(
      new RegExp(`^rideport: convert ${DAMAGED}: warning: This file is damaged .*\\(RIDEFILE_BAD_CRC\\)$`),
    );
  });

  it('inspect, with --json too, says them on stderr as well as in its report', async () => {
    for (const args of [[], ['--json']]) {
      const run = await rideport(['inspect', TRUNCATED, ...args]);
      expect(run.status).toBe(0);
      expect(run.stderrLines).toEqual([
        `rideport: inspect ${TRUNCATED}: warning: This file ends early: the ride was read up to 08:00 UTC. (RIDEFILE_TRUNCATED)`,
      ]);
    }
  });

  it('a sound file has nothing on stderr', async () => {
    expect((await rideport(['inspect', SOUND])).stderr).toBe('');
    expect((await rideport(['convert', SOUND, '--to', 'gpx'])).stderr).toBe('');
  });
});
