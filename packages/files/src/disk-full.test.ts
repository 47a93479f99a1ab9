/**
 * The full-disk predicate and the walk of an error's causes (issue 35: one of each, for the server and
 * the sync engine). The full disk itself, on a small tmpfs, is tested where it matters: the server's
 * disk-full.test.ts and the sync engine's.
 */
import { describe, expect, it } from 'vitest';
import { someCause } from './causes.js';
import { isDiskFull } from './disk-full.js';

const coded = (code: string, options?: { cause?: unknown }): Error =>
  Object.assign(new Error(code, options), { code });

describe('isDiskFull', () => {
  it("says SQLite's and the file system's full disk, and nothing else", () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT']) expect(isDiskFull(coded(code))).toBe(true);
    for (const code of ['SQLITE_BUSY', 'ENOENT', 'EACCES']) expect(isDiskFull(coded(code))).toBe(false);
    expect(isDiskFull(new Error('no space left on device'))).toBe(false);
    expect(isDiskFull(null)).toBe(false);
    expect(isDiskFull('ENOSPC')).toBe(false);
    expect(isDiskFull({ code: 28 })).toBe(false);
  });

  it('finds it in the errors an error wraps', () => {
    expect(isDiskFull(new Error('the store failed', { cause: coded('SQLITE_FULL') }))).toBe(true);
    expect(isDiskFull({ message: 'server_error', inner: coded('ENOSPC') })).toBe(true);
  });
});

describe('someCause', () => {
  it('walks `cause`, else `inner`, a few levels deep', () => {
    const wrapped = (depth: number): unknown => {
      let error: unknown = coded('ENOSPC');
      for (let i = 0; i < depth; i++) error = new Error(`level ${i}`, { cause: error });
      return error;
    };
    const full = (error: object): boolean => (error as { code?: unknown }).code === 'ENOSPC';
    expect(someCause(wrapped(4), full)).toBe(true);
    expect(someCause(wrapped(5), full)).toBe(false);
    // `cause` first: an error with both is followed through its cause.
    expect(someCause({ cause: {}, inner: coded('ENOSPC') }, full)).toBe(false);
  });
});
