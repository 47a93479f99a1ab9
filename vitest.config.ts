import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { postgresBinaries } from './packages/server/src/test-support/postgres-cluster.js';

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
        // The dashboard's tests too: they store rides through the server (issue 35).
        include: ['packages/server/src/**/*.test.ts', 'packages/dashboard/src/**/*.test.ts'],
        // What only SQLite has: its files, checkpoints, data directory and migrations from old versions.
        exclude: [
          'packages/server/src/db/**',
          'packages/server/src/data-directory/**',
          'packages/server/src/disk-full.test.ts',
        ],
        env: { RIDEPORT_TEST_ENGINE: 'postgres' },
        globalSetup: ['./packages/server/src/test-support/postgres-global-setup.ts'],
        testTimeout: 60_000,
      },
    },
  ];
}

export default defineConfig({
  resolve: { alias },
  test: {
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
          testTimeout: 60_000,
        },
      },
      ...serverOnPostgres(),
      {
        resolve: { alias },
        test: {
          name: 'dashboard',
          root: './packages/dashboard',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
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
        test: { name: 'files', root: './packages/files', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: 'sync', root: './packages/sync', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: 'host', root: './packages/host', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: 'cli', root: './packages/cli', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: 'app', root: './app', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        // Tests that span packages (docs/contributors/architecture.md layout): client ↔ server contract, sync → server end to end.
        resolve: { alias },
        test: { name: 'cross-package', root: './test', include: ['**/*.test.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
