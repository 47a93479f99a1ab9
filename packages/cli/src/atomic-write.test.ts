import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically } from './atomic-write.js';
import { FileError } from './errors.js';
import { temporaryDirectory } from './test-support/run.js';

describe('writeFileAtomically', () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  beforeEach(() => {
    directory = temporaryDirectory();
  });
  afterEach(() => {
    directory.remove();
  });

  it('writes every chunk and leaves only the target', async () => {
    const target = join(directory.path, 'out.json');
    await writeFileAtomically(target, async (sink) => {
      for (let i = 0; i < 100; i++) await sink.write(`${i},`);
    });
    expect(readFileSync(target, 'utf8')).toBe(Array.from({ length: 100 }, (_, i) => `${i},`).join(''));
    expect(readdirSync(directory.path)).toEqual(['out.json']);
  });

  it('leaves the old file untouched, and no temporary file, when the writing fails half-way', async () => {
    const target = join(directory.path, 'out.json');
    writeFileSync(target, 'the previous, complete output');
    const failure = new Error('interrupted');
    await expect(
      writeFileAtomically(target, async (sink) => {
        await sink.write('{"format":"fit","tracks":[');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(readFileSync(target, 'utf8')).toBe('the previous, complete output');
    expect(readdirSync(directory.path)).toEqual(['out.json']);
  });

  it('reports a file-system failure with its code, naming the target', async () => {
    const target = join(directory.path, 'no', 'such', 'dir', 'out.json');
    const error: unknown = await writeFileAtomically(target, () => Promise.resolve()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileError);
    expect((error as FileError).code).toBe('ENOENT');
    expect((error as FileError).message).toBe(
      `cannot write ${target}: the folder ${dirname(target)} does not exist`,
    );
  });
});
