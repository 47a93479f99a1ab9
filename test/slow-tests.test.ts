/**
 * Issue 35: the list of slow tests (slow-tests.ts) names files and tests that exist, so that each test
 * runs in exactly one of `npm test` and `npm run test:slow`. A whole file is left out of one run and
 * put in the other by vitest.config.ts; of a split file, support/slow-tests-runner.ts skips a test in
 * one run exactly when it runs it in the other. An entry that named no file would run nowhere in
 * test:slow; one whose test no longer matched would move that test back into npm test unseen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT, SLOW_FILES, SLOW_TESTS, SPLIT_FILES } from './slow-tests.js';

/** The project folders of vitest.config.ts whose test files end in .test.ts. */
const PROJECT_ROOTS = [
  'packages/ridefile/src/',
  'packages/server/src/',
  'packages/client/src/',
  'packages/sync/src/',
  'packages/cli/src/',
  'app/src/',
  'test/',
];

/** A string literal of `text` as the file may write it: in quotes of any kind, with \ before its own. */
function literalIn(source: string, text: string): boolean {
  return ["'", '"', '`'].some((quote) =>
    source.includes(`${quote}${text.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`)}${quote}`),
  );
}

describe('the slow tests (test/slow-tests.ts)', () => {
  it('names test files of the projects, each once, and says why each is slow', () => {
    expect(SLOW_TESTS.length).toBeGreaterThan(0);
    for (const entry of SLOW_TESTS) {
      expect(existsSync(join(REPOSITORY_ROOT, entry.file)), entry.file).toBe(true);
      expect(entry.file, entry.file).toMatch(/\.test\.ts$/);
      expect(
        PROJECT_ROOTS.some((root) => entry.file.startsWith(root)),
        `${entry.file} is in no project`,
      ).toBe(true);
      expect(entry.why.length, entry.file).toBeGreaterThan(20);
    }
    // A file is slow whole or split, never both; and no test is named twice.
    expect(SLOW_FILES.filter((file) => SPLIT_FILES.includes(file))).toEqual([]);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
    const tests = SLOW_TESTS.filter((entry) => entry.test !== undefined).map(
      (entry) => `${entry.file} > ${entry.test!}`,
    );
    expect(new Set(tests).size).toBe(tests.length);
  });

  it('names each test of a split file by the titles its file gives it and its describe blocks', () => {
    for (const entry of SLOW_TESTS) {
      if (entry.test === undefined) continue;
      const source = readFileSync(join(REPOSITORY_ROOT, entry.file), 'utf8');
      for (const title of entry.test.split(' > ')) {
        expect(literalIn(source, title), `${entry.file}: "${title}"`).toBe(true);
      }
    }
  });

  it('finds a literal the way the file writes it, and not a part of one', () => {
    expect(literalIn(`it('takes the token', () => {})`, 'takes the token')).toBe(true);
    expect(literalIn(`it("a rider's ride", () => {})`, "a rider's ride")).toBe(true);
    expect(literalIn(`it('a rider\\'s ride', () => {})`, "a rider's ride")).toBe(true);
    expect(literalIn(`it('takes the token twice', () => {})`, 'takes the token')).toBe(false);
  });
});
