import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { postgresBinaries } from './packages/server/src/test-support/postgres-cluster.js';
import { DurationsReporter } from './scripts/test-durations/reporter.js';
import { SLOW_FILES, SPLIT_FILES } from './test/slow-tests.js';

// Tests run against the TypeScript sources of sibling packages, not their build output.
const alias = {
  '@rideport/ridefile': fileURLToPath(new URL('./packages/ridefile/src/index.ts', import.meta.url)),
  // Subpaths before their packages, which would match them as a prefix.
  '@rideport/host/freed-memory': fileURLToPath(
    new URL('./packages/host/src/freed-memory.ts', import.meta.url),
  ),
  '@rideport/host/long-running': fileURLToPath(
    new URL('./packages/host/src/long-running.ts', import.meta.url),
  ),
  '@rideport/host': fileURLToPath(new URL('./packages/host/src/index.ts', import.meta.url)),
  '@rideport/server/heap-collection': fileURLToPath(
    new URL('./packages/server/src/heap-collection.ts', import.meta.url),
  ),
  '@rideport/server/young-generation': fileURLToPath(
    new URL('./packages/server/src/young-generation.ts', import.meta.url),
  ),
  '@rideport/server/web': fileURLToPath(new URL('./packages/server/src/web.ts', import.meta.url)),
  '@rideport/server/test-support': fileURLToPath(
    new URL('./packages/server/src/test-support/index.ts', import.meta.url),
  ),
  '@rideport/server': fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
  '@rideport/dashboard': fileURLToPath(new URL('./packages/dashboard/src/index.ts', import.meta.url)),
  '@rideport/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
  '@rideport/files': fileURLToPath(new URL('./packages/files/src/index.ts', import.meta.url)),
  '@rideport/sync': fileURLToPath(new URL('./packages/sync/src/index.ts', import.meta.url)),
};

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/** One PostgreSQL cluster a run, for every project that names it (issue 35). */
const POSTGRES_SETUP = path('./packages/server/src/test-support/postgres-global-setup.ts');
/** One Chromium a run, for every project with page tests (issue 35). */
const CHROMIUM_SETUP = path('./test/support/chromium-global-setup.ts');
/** Vitest's runner, which also splits the files that hold slow tests beside fast ones (test/slow-tests.ts). */
const SLOW_TESTS_RUNNER = path('./test/support/slow-tests-runner.ts');

/**
 * Issue 35: `npm test` (`vitest run`) runs every test but the slow ones that test/slow-tests.ts names;
 * `npm run test:slow` (`vitest run --mode slow`) runs exactly those, and the server's tests a second
 * time on PostgreSQL. test/slow-tests.test.ts checks that each test runs in one of the two.
 */
function project(
  name: string,
  /** the project's folder, from the repository root */
  root: string,
  slowRun: boolean,
  test: Omit<NonNullable<TestProjectInlineConfiguration['test']>, 'name' | 'root'> & { include: string[] },
): TestProjectInlineConfiguration[] {
  const under = (files: readonly string[]): string[] =>
    files.filter((file) => file.startsWith(`${root}/`)).map((file) => file.slice(root.length + 1));
  const slowFiles = under(SLOW_FILES);
  const splitFiles = under(SPLIT_FILES);
  const include = slowRun ? [...slowFiles, ...splitFiles] : test.include;
  if (include.length === 0) return [];
  return [
    {
      resolve: { alias },
      test: {
        ...test,
        name,
        root: `./${root}`,
        include,
        exclude: [...configDefaults.exclude, ...(test.exclude ?? []), ...(slowRun ? [] : slowFiles)],
        runner: SLOW_TESTS_RUNNER,
        env: { ...test.env, RIDEPORT_TEST_RUN: slowRun ? 'slow' : 'fast' },
      },
    },
  ];
}

/**
 * Issue 18: the server's tests run a second time on PostgreSQL, on a throwaway cluster of Debian's
 * `postgresql` (which .ci/run installs), in `npm run test:slow` (issue 35). Without it that run is left
 * out, and says so.
 */
function serverOnPostgres(): TestProjectInlineConfiguration[] {
  const binaries = postgresBinaries();
  if ('missing' in binaries) {
    console.warn(`Skipped: the server tests on PostgreSQL (${binaries.missing}).`);
    return [];
  }
  return [
    {
      resolve: { alias },
      test: {
        name: 'server-postgres',
        // The dashboard's tests too: they store rides through the server (issue 35).
        include: ['packages/server/src/**/*.test.ts', 'packages/dashboard/src/**/*.test.ts'],
        // What only SQLite has: its files, checkpoints, data directory and migrations from old versions.
        exclude: [
          ...configDefaults.exclude,
          'packages/server/src/db/**',
          'packages/server/src/data-directory/**',
          'packages/server/src/disk-full.test.ts',
        ],
        env: { RIDEPORT_TEST_ENGINE: 'postgres' },
        globalSetup: [POSTGRES_SETUP],
        testTimeout: 60_000,
      },
    },
  ];
}

export default defineConfig(({ mode }) => {
  const slowRun = mode === 'slow';
  return {
    resolve: { alias },
    test: {
      // Issue 35: one test file a core. Vitest's default leaves a core free (one worker on a two-core
      // machine); most files wait on sockets, child processes and the database, not the CPU, so a
      // worker for every core halves the run. `--maxWorkers` on the command line still decides.
      maxWorkers: Math.max(2, availableParallelism()),
      // Issue 35: every run records each file's duration (npm run test:durations summarises it).
      reporters: [
        'default',
        new DurationsReporter(slowRun ? 'test-results/durations-slow.json' : 'test-results/durations.json'),
      ],
      projects: [
        ...project('ridefile', 'packages/ridefile', slowRun, {
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        }),
        ...project('server', 'packages/server', slowRun, {
          include: ['src/**/*.test.ts'],
          globalSetup: [POSTGRES_SETUP],
          testTimeout: 60_000,
        }),
        ...(slowRun ? serverOnPostgres() : []),
        ...project('client', 'packages/client', slowRun, {
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        }),
        ...project('dashboard', 'packages/dashboard', slowRun, {
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        }),
        ...project('files', 'packages/files', slowRun, {
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        }),
        ...project('sync', 'packages/sync', slowRun, { include: ['src/**/*.test.ts'], testTimeout: 60_000 }),
        ...project('host', 'packages/host', slowRun, { include: ['src/**/*.test.ts'], testTimeout: 60_000 }),
        ...project('cli', 'packages/cli', slowRun, {
          include: ['src/**/*.test.ts'],
          globalSetup: [POSTGRES_SETUP],
          testTimeout: 60_000,
        }),
        ...project('app', 'app', slowRun, {
          include: ['src/**/*.test.ts'],
          globalSetup: [CHROMIUM_SETUP],
          testTimeout: 60_000,
        }),
        // Tests that span packages (docs/contributors/architecture.md): client ↔ server contract, sync → server end to end.
        ...project('cross-package', 'test', slowRun, {
          include: ['**/*.test.ts'],
          globalSetup: [CHROMIUM_SETUP],
          testTimeout: 120_000,
        }),
      ],
    },
  };
});
