/**
 * The slow tests, in one place (issue 35, "tests in ten minutes"): what `npm test` leaves to
 * `npm run test:slow`, and why. Every test runs in exactly one of the two: vitest.config.ts leaves the
 * files named whole out of `npm test` and runs only them (and the server's second run on PostgreSQL,
 * the project "server-postgres") in `npm run test:slow`; of a file named with tests, those tests run
 * only in test:slow and the rest of it only in npm test (test/support/slow-tests-runner.ts), each
 * skipped test saying where it runs. test/slow-tests.test.ts holds every entry to a file and a test
 * that exist. CI (.ci/run) runs both.
 *
 * What belongs here: soaks, tests that start and kill several processes, packaging — tests whose time is
 * their point. Not a test that is slow because it sleeps or starts what it need not: make that fast.
 *
 * Paths are from the repository root; a test is named as Vitest's reporters print it, its describe
 * blocks first, joined by " > ".
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface SlowTest {
  /** the test file, from the repository root */
  file: string;
  /** one test of it, its describe blocks first, joined by " > "; none: the whole file */
  test?: string;
  /** why it is slow, and why it must stay so */
  why: string;
}

/** What a slow test says when npm test skips it. */
export const SLOW_IN_FAST_RUN_NOTE = 'slow: runs in npm run test:slow';
/** What the rest of a file that holds a slow test says when test:slow skips it. */
export const FAST_IN_SLOW_RUN_NOTE = 'runs in npm test';

export const SLOW_TESTS: readonly SlowTest[] = [
  {
    file: 'test/sync-e2e.test.ts',
    test: 'sync against a real server > the server killed mid-sync: every ride arrives after it restarts, none twice',
    why:
      'kills a server process mid-sync and starts another; the engine then waits out its offline backoff ' +
      'and the killed server its leases, as it would for a rider (about a minute)',
  },
  {
    file: 'packages/server/src/queue/durability.test.ts',
    test: 'a server killed while it processes uploads > loses none and doubles none: every upload ends exactly once as its rides',
    why: 'SIGKILLs a server process mid-batch and reads every upload again in a second one',
  },
  {
    file: 'packages/server/src/webhooks/durability.test.ts',
    why: 'SIGKILLs a server process with undelivered notifications; a second server process delivers them',
  },
  {
    file: 'packages/cli/src/commands/one-server.test.ts',
    test: 'one server per data directory > takes over the directory of a server killed with SIGKILL',
    why: 'three rideport serve processes in turn, the first SIGKILLed',
  },
  {
    file: 'packages/cli/src/commands/one-server.test.ts',
    test: 'one server per data directory > lets exactly one of two servers started at the same instant run, round after round',
    why: 'eight rideport serve processes, two at a time, racing for one data directory',
  },
  {
    file: 'packages/sync/src/memory.test.ts',
    why: 'a soak: 3,500 files through the running engine, the heap compared after N and after 3N',
  },
  {
    file: 'app/src/packaging.test.ts',
    why: 'packaging: electron-builder builds the app folder (when RIDEPORT_ELECTRON_BUILDER names it, as in CI)',
  },
  {
    file: 'test/published-packages.test.ts',
    why: 'packaging: packs the published packages, installs the tarballs into a project, type-checks and bundles it',
  },
];

/** The files that are slow whole, from the repository root. */
export const SLOW_FILES: readonly string[] = SLOW_TESTS.filter((entry) => entry.test === undefined).map(
  (entry) => entry.file,
);

/** The files that hold slow tests beside fast ones, from the repository root. */
export const SPLIT_FILES: readonly string[] = [
  ...new Set(SLOW_TESTS.filter((entry) => entry.test !== undefined).map((entry) => entry.file)),
];
