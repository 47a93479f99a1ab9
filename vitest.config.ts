import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { postgresBinaries } from './packages/server/src/test-support/postgres-cluster.js';
import { DurationsReporter } from './scripts/test-durations/reporter.js';

// Tests run against the TypeScript sources of sibling packages, not their build output.
const alias = {
  '@rideport/ridefile': fileURLToPath(new URL('./packages/ridefile/src/index.ts', import.meta.url)),
  // Before '@rideport/server', which would match it as a prefix.
  '@rideport/server/freed-memory': fileURLToPath(
    new URL('./packages/server/src/freed-memory.ts', import.meta.url),
  ),
  '@rideport/server': fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
  '@rideport/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
  '@rideport/sync': fileURLToPath(new URL('./packages/sync/src/index.ts', import.meta.url)),
};

const path = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/** One PostgreSQL cluster a run, for every project that names it (issue 35). */
const POSTGRES_SETUP = path('./packages/server/src/test-support/postgres-global-setup.ts');
/** One Chromium a run, for every project with page tests (issue 35). */
const CHROMIUM_SETUP = path('./test/support/chromium-global-setup.ts');

/**
 * Issue 18: the server's tests run a second time on PostgreSQL, on a throwaway cluster of Debian's
 * `postgresql` (which .ci/run installs). Without it that run is left out, and says so.
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
        root: './packages/server',
        include: ['src/**/*.test.ts'],
        // What only SQLite has: its files, checkpoints, data directory and migrations from old versions.
        exclude: ['src/db/**', 'src/data-directory/**', 'src/disk-full.test.ts'],
        env: { RIDEPORT_TEST_ENGINE: 'postgres' },
        globalSetup: [POSTGRES_SETUP],
        testTimeout: 60_000,
      },
    },
  ];
}

export default defineConfig({
  resolve: { alias },
  test: {
    // Issue 35: every run records each file's duration (npm run test:durations summarises it).
    reporters: ['default', new DurationsReporter('test-results/durations.json')],
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'ridefile',
          root: './packages/ridefile',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'server',
          root: './packages/server',
          include: ['src/**/*.test.ts'],
          globalSetup: [POSTGRES_SETUP],
          testTimeout: 60_000,
        },
      },
      ...serverOnPostgres(),
      {
        resolve: { alias },
        test: {
          name: 'client',
          root: './packages/client',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: { name: 'sync', root: './packages/sync', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: {
          name: 'cli',
          root: './packages/cli',
          include: ['src/**/*.test.ts'],
          globalSetup: [POSTGRES_SETUP],
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'app',
          root: './app',
          include: ['src/**/*.test.ts'],
          globalSetup: [CHROMIUM_SETUP],
          testTimeout: 60_000,
        },
      },
      {
        // Tests that span packages (design.md layout): client ↔ server contract, sync → server end to end.
        resolve: { alias },
        test: {
          name: 'cross-package',
          root: './test',
          include: ['**/*.test.ts'],
          globalSetup: [CHROMIUM_SETUP],
          testTimeout: 120_000,
        },
      },
    ],
  },
});
