import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against the TypeScript sources of sibling packages, not their build output.
const alias = {
  '@rideport/ridefile': fileURLToPath(new URL('./packages/ridefile/src/index.ts', import.meta.url)),
  '@rideport/server': fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
  '@rideport/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)),
  '@rideport/sync': fileURLToPath(new URL('./packages/sync/src/index.ts', import.meta.url)),
};

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
        test: { name: 'cli', root: './packages/cli', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: 'app', root: './app', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        // Tests that span packages (design.md layout): client ↔ server contract, sync → server end to end.
        resolve: { alias },
        test: { name: 'cross-package', root: './test', include: ['**/*.test.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
