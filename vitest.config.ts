import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run against the TypeScript sources of sibling packages, not their build output.
const alias = {
  '@rideport/ridefile': fileURLToPath(new URL('./packages/ridefile/src/index.ts', import.meta.url)),
  '@rideport/server': fileURLToPath(new URL('./packages/server/src/index.ts', import.meta.url)),
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
        test: { name: 'cli', root: './packages/cli', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
      },
    ],
  },
});
