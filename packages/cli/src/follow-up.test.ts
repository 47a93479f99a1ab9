import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rideportCommand } from './follow-up.js';
import { REPOSITORY_ROOT, temporaryDirectory } from './test-support/run.js';

const LAUNCHER = join(REPOSITORY_ROOT, 'packages/cli/bin/rideport.js');

const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

/** A folder for the PATH holding `rideport`: a link to the launcher, or another program. */
function binFolder(rideport: 'this' | 'another'): string {
  const directory = temporaryDirectory();
  removals.push(directory.remove);
  const bin = join(directory.path, 'bin');
  mkdirSync(bin);
  if (rideport === 'this') symlinkSync(LAUNCHER, join(bin, 'rideport'));
  else writeFileSync(join(bin, 'rideport'), '#!/bin/sh\n');
  return bin;
}

// Issue 35: `up` printed `rideport admin sign-in-link`, which a rider who ran `npm start` has not on
// the PATH (status 127): the commands to run next are printed as the rider can run them.
describe('rideportCommand', () => {
  it('is `rideport` when the rideport on the PATH is this program', () => {
    const env = { PATH: [binFolder('another'), '/nowhere'].join(delimiter) };
    expect(rideportCommand({ env, program: LAUNCHER, platform: 'linux' })).toBe('npx rideport');
    const mine = { PATH: ['/nowhere', binFolder('this'), binFolder('another')].join(delimiter) };
    expect(rideportCommand({ env: mine, program: LAUNCHER, platform: 'linux' })).toBe('rideport');
  });

  it('is `npx rideport` when started through npm, whose PATH the rider has not', () => {
    const PATH = binFolder('this');
    for (const npm of [{ npm_lifecycle_event: 'start' }, { npm_execpath: '/usr/lib/npm/bin/npm-cli.js' }]) {
      expect(rideportCommand({ env: { PATH, ...npm }, program: LAUNCHER, platform: 'linux' })).toBe(
        'npx rideport',
      );
    }
  });

  it('is `npx rideport` when no rideport is on the PATH, or the program is not known', () => {
    expect(rideportCommand({ env: { PATH: '/nowhere' }, program: LAUNCHER, platform: 'linux' })).toBe(
      'npx rideport',
    );
    expect(rideportCommand({ env: {}, program: LAUNCHER, platform: 'linux' })).toBe('npx rideport');
    expect(rideportCommand({ env: { PATH: binFolder('this') }, platform: 'linux' })).toBe('npx rideport');
  });
});
