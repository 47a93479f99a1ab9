// Lint: typescript-eslint type-aware rules everywhere, plus the package boundaries of design.md
// ("Enforce it with package dependencies, tsconfig references and lint rules, not by goodwill").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `${name}/*`]);
// design.md: "Only `app` imports `electron`." Every no-restricted-imports entry below repeats it,
// because a later entry for the same files replaces an earlier one instead of adding to it.
const noElectron = { name: 'electron', message: 'Only the desktop app (app/) imports electron.' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./packages/*/tsconfig.json', './tsconfig.check.json', './app/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Column arrays are read with `!` after bounds are known; the checker cannot see the loop bounds.
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'House style: no default exports.' },
      ],
    },
  },
  {
    files: ['packages/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  {
    // @rideport/ridefile is pure: no node:* and no sibling packages (design.md, layout).
    files: ['packages/ridefile/src/**/*.ts'],
    ignores: ['packages/ridefile/src/**/*.test.ts', 'packages/ridefile/src/test-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['node:*', ...nodeBuiltins],
              message: '@rideport/ridefile runs in browsers: no Node built-ins.',
            },
            { group: ['@rideport/*'], message: '@rideport/ridefile depends on no sibling package.' },
          ],
        },
      ],
    },
  },
  {
    // design.md: "`ridefile` and `client` depend on nothing of ours. `server` → `ridefile`.
    // `sync` → `client`, `ridefile`."
    files: ['packages/client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [{ group: ['@rideport/*'], message: '@rideport/client depends on no sibling package.' }],
        },
      ],
    },
  },
  {
    files: ['packages/server/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['@rideport/*', '!@rideport/ridefile'],
              message: '@rideport/server depends only on @rideport/ridefile.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/sync/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['@rideport/*', '!@rideport/ridefile', '!@rideport/client'],
              message: '@rideport/sync depends only on @rideport/client and @rideport/ridefile.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests may use what they like, but must not sneak in skipped or focused tests.
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Tool configuration files are loaded by their tools through a default export.
    files: ['*.config.js', '*.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
