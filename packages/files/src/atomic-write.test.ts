/**
 * writeFileAtomically (issue 35): the one atomic write of the server's holder record, the sync engine's
 * inbox, the local account, the desktop app's files and the command line's `--out` files. The first two
 * tests are the command line's, from before the three copies became one.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically } from './atomic-write.js';

const POSIX = process.platform !== 'win32';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'rideport-files-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('writeFileAtomically', () => {
  it('writes every chunk and leaves only the target', async () => {
    const target = join(directory, 'out.json');
    await writeFileAtomically(target, async (sink) => {
      for (let i = 0; i < 100; i++) await sink.write(`${i},`);
    });
    expect(readFileSync(target, 'utf8')).toBe(Array.from({ length: 100 }, (_, i) => `${i},`).join(''));
    expect(readdirSync(directory)).toEqual(['out.json']);
  });

  it('leaves the old file untouched, and no temporary file, when the writing fails half-way', async () => {
    const target = join(directory, 'out.json');
    writeFileSync(target, 'the previous, complete output');
    const failure = new Error('interrupted');
    await expect(
      writeFileAtomically(target, async (sink) => {
        await sink.write('{"format":"fit","tracks":[');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(readFileSync(target, 'utf8')).toBe('the previous, complete output');
    expect(readdirSync(directory)).toEqual(['out.json']);
  });

  it('writes text, bytes and chunks of both, replacing what was there', async () => {
    const target = join(directory, 'ride.gpx');
    writeFileSync(target, 'old');
    await writeFileAtomically(target, 'text');
    expect(readFileSync(target, 'utf8')).toBe('text');
    await writeFileAtomically(target, new Uint8Array([0x62, 0x79, 0x74, 0x65, 0x73]));
    expect(readFileSync(target, 'utf8')).toBe('bytes');
    await writeFileAtomically(target, async (sink) => {
      await sink.write('a');
      await sink.write(new Uint8Array([0x62]));
      await sink.write('c');
    });
    expect(readFileSync(target, 'utf8')).toBe('abc');
    expect(readdirSync(directory)).toEqual(['ride.gpx']);
  });

  it.runIf(POSIX)("makes the file its owner's alone unless told otherwise", async () => {
    const secret = join(directory, 'credentials.json');
    await writeFileAtomically(secret, '{}');
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    const shared = join(directory, 'rideport.desktop');
    await writeFileAtomically(shared, '[Desktop Entry]', { mode: 0o644 });
    // Less the umask, which never adds permissions.
    expect(statSync(shared).mode & 0o777 & ~0o644).toBe(0);
    expect(statSync(shared).mode & 0o600).toBe(0o600);
  });

  it('makes a missing folder only when given its mode; else the folder must exist', async () => {
    const target = join(directory, 'inbox', 'nested', 'ride.fit');
    await expect(writeFileAtomically(target, 'ride')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(directory)).toEqual([]);
    await writeFileAtomically(target, 'ride', { folderMode: 0o700 });
    expect(readFileSync(target, 'utf8')).toBe('ride');
    if (POSIX) expect(statSync(join(directory, 'inbox')).mode & 0o077).toBe(0);
  });

  it('removes the temporary file when the rename fails, and says why', async () => {
    const target = join(directory, 'out.json');
    mkdirSync(target);
    await expect(writeFileAtomically(target, 'content')).rejects.toHaveProperty('code');
    expect(readdirSync(directory)).toEqual(['out.json']);
    expect(statSync(target).isDirectory()).toBe(true);
  });
});
