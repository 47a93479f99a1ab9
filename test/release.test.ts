/**
 * The release scripts' one piece of text surgery (issue 21): `npm run version-packages` sets the
 * client's CLIENT_VERSION (its User-Agent) to the version Changesets gave the package.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../scripts/pack-package.js';
import { withClientVersion } from '../scripts/release.js';

describe('withClientVersion', () => {
  const source = readFileSync(join(REPOSITORY_ROOT, 'packages/client/src/client.ts'), 'utf8');

  it('sets CLIENT_VERSION in the real client.ts and changes nothing else', () => {
    const updated = withClientVersion(source, '1.2.3');
    expect(updated).toContain("export const CLIENT_VERSION = '1.2.3';");
    expect(updated.replace("'1.2.3'", "'X'")).toBe(
      source.replace(/CLIENT_VERSION = '[^']*'/, "CLIENT_VERSION = 'X'"),
    );
  });

  it('refuses, in words, a client.ts without the declaration', () => {
    expect(() => withClientVersion('export const OTHER = 1;\n', '1.2.3')).toThrow(
      /has no line "export const CLIENT_VERSION = '…';" to update/,
    );
  });
});
