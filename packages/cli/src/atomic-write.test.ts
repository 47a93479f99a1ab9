/**
 * The command line's words for a failed `--out` write; what the write itself does (whole or not at
 * all, chunk by chunk) is tested with it in @rideport/files (issue 35).
 */
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

  it("passes on a producer's own failure as it is", async () => {
    const failure = new Error('interrupted');
    await expect(
      writeFileAtomically(join(directory.path, 'out.json'), () => Promise.reject(failure)),
    ).rejects.toBe(failure);
  });
});
