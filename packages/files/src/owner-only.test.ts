/**
 * Owner-only files and folders (issue 20), whatever the umask. Real processes under `umask 000` make a
 * whole data directory so in the command line's owner-only.test.ts; here the helpers themselves.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOwnerOnlyFile,
  makeOwnerOnlyFolder,
  ownerOnlyDirectory,
  tightenOwnerOnly,
} from './owner-only.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-owner-only-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe.runIf(process.platform !== 'win32')('owner-only files and folders', () => {
  it('makes missing folders 0700 and a new file 0600, and leaves an existing file as it is', () => {
    const folder = join(directory, 'data', 'sync');
    makeOwnerOnlyFolder(folder);
    expect(modeOf(folder)).toBe(0o700);
    const file = join(folder, 'ledger.sqlite');
    createOwnerOnlyFile(file);
    expect(modeOf(file)).toBe(0o600);
    writeFileSync(file, 'kept');
    createOwnerOnlyFile(file);
    expect(statSync(file).size).toBe(4);
  });

  it("takes the group's and others' permissions off everything, following no link", () => {
    const data = join(directory, 'data');
    mkdirSync(join(data, 'inbox'), { recursive: true });
    writeFileSync(join(data, 'inbox', 'ride.fit'), 'ride');
    const outside = join(directory, 'outside.txt');
    writeFileSync(outside, 'not ours to change');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(data, 'link'));
    chmodSync(data, 0o755);
    chmodSync(join(data, 'inbox'), 0o777);
    chmodSync(join(data, 'inbox', 'ride.fit'), 0o664);
    tightenOwnerOnly(data);
    expect([modeOf(data), modeOf(join(data, 'inbox')), modeOf(join(data, 'inbox', 'ride.fit'))]).toEqual([
      0o700, 0o700, 0o600,
    ]);
    expect(modeOf(outside)).toBe(0o644);
  });

  it('makes a missing directory and tightens an existing one', () => {
    const made = join(directory, 'new');
    ownerOnlyDirectory(made);
    expect(modeOf(made)).toBe(0o700);
    chmodSync(made, 0o755);
    ownerOnlyDirectory(made);
    expect(modeOf(made)).toBe(0o700);
  });

  // A file that no one may chmod, not even root: Linux's /proc.
  it.runIf(process.platform === 'linux')(
    'refuses a file it cannot change with a sentence naming it, in the words the caller chooses',
    () => {
      const file = '/proc/self/status';
      expect(() => {
        tightenOwnerOnly(file);
      }).toThrow(
        expect.objectContaining({
          code: 'EPERM',
          message: expect.stringMatching(
            /^cannot make \/proc\/self\/status readable by its owner only \(/,
          ) as string,
        }),
      );
      const refusal = new Error('the data directory is unusable');
      expect(() => {
        tightenOwnerOnly(file, (message, cause) => {
          expect(message).toContain(file);
          expect(cause).toMatchObject({ code: 'EPERM' });
          return refusal;
        });
      }).toThrow(refusal);
    },
  );
});
