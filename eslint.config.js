/* global console */
// Lint: typescript-eslint type-aware rules everywhere, plus the package boundaries of docs/contributors/architecture.md
// ("Enforce it with package dependencies, tsconfig references and lint rules, not by goodwill").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { electronInstalled } from './scripts/desktop-toolchain.js';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `${name}/*`]);
// docs/contributors/architecture.md: "Only `app` imports `electron`." Every no-restricted-imports entry below repeats it,
// because a later entry for the same files replaces an earlier one instead of adding to it.
const noElectron = { name: 'electron', message: 'Only the desktop app (app/) imports electron.' };
// The app's Electron entry points are linted with Electron's types, which only the desktop toolchain
// installs (issue 20, scripts/desktop-toolchain.js); without them they are left out, and it says so.
const electronEntryPoints = ['app/src/main.ts', 'app/src/electron-real.ts', 'app/src/preload.cts'];
const withElectron = electronInstalled();

/**
 * Issue 35: a migration never changes after it ships, so it imports nothing that does: only Kysely,
 * Node's built-ins and the migration tree itself (its dialects and frozen/ modules), never the store,
 * the parser or the rest of the server. `tree`: the relative specifiers that stay inside the tree.
 */
function migrationImports(tree) {
  const message = 'A migration imports only kysely, node:* and the migration tree (issue 35).';
  return {
    'no-restricted-imports': [
      'error',
      { paths: [noElectron], patterns: [{ regex: `^(?!kysely$|node:|${tree})`, message }] },
    ],
  };
}
if (!withElectron) {
  console.warn("Skipped: linting the desktop app's Electron entry points (Electron is not installed).");
}

/**
 * The server's layers (issue 35), each importing only from those below it: foundation modules, then
 * the database (db), the store, the services (upload queue, webhooks, authentication), the HTTP
 * interfaces (v1, legacy, OAuth, pages), and the app that assembles them. A migration imports nothing
 * of the live code: once shipped it never changes. Every block repeats the package rule (the server
 * depends only on @rideport/ridefile, @rideport/client and @rideport/files), because a later block for
 * the same files replaces an earlier one. The client, because the webhook dispatcher is an HTTP client
 * of the integrators' receivers and retries on the client's schedule (backoffDelayMs, issue 35).
 */
function serverLayers() {
  const packageRule = {
    group: ['@rideport/*', '!@rideport/ridefile', '!@rideport/client', '!@rideport/files'],
    message: '@rideport/server depends only on @rideport/ridefile, @rideport/client and @rideport/files.',
  };
  const rule = (patterns) => ({
    'no-restricted-imports': ['error', { paths: [noElectron], patterns: [packageRule, ...patterns] }],
  });
  const above = (folders, why) => [{ regex: `^(\\.\\./)+(${folders.join('|')})(/|\\.js$)`, message: why }];
  const http = ['api', 'legacy', 'oauth', 'pages', 'app', 'web'];
  const services = ['queue', 'webhooks', 'auth', 'platform', 'club-sharing', 'original-download'];
  const tests = ['packages/server/src/**/*.test.ts', 'packages/server/src/test-support/**'];
  return [
    { files: ['packages/server/src/**/*.ts'], rules: rule([]) },
    {
      files: ['packages/server/src/{queue,webhooks,auth}/**/*.ts'],
      ignores: tests,
      rules: rule(above(http, 'Services never reach up into the HTTP handlers.')),
    },
    {
      files: ['packages/server/src/store/**/*.ts'],
      ignores: tests,
      rules: rule(
        above(
          [...http, ...services, 'options'],
          'The store is below the services and the HTTP handlers, and is given only its own options.',
        ),
      ),
    },
    {
      files: ['packages/server/src/db/**/*.ts'],
      ignores: [...tests, 'packages/server/src/db/migrations/**'],
      rules: rule(
        above(
          [...http, ...services, 'store', 'options', 'data-directory'],
          'The database layer is below the store and the data directory it lives in.',
        ),
      ),
    },
    {
      files: ['packages/server/src/{codec,ports}/**/*.ts'],
      ignores: tests,
      rules: rule(
        above(
          [...http, ...services, 'store', 'db', 'options'],
          'Codecs and ports depend on nothing above them.',
        ),
      ),
    },
  ];
}

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'test-results/**',
      ...(withElectron ? [] : electronEntryPoints),
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: [
          './packages/*/tsconfig.json',
          './tsconfig.check.json',
          './app/tsconfig.json',
          ...(withElectron ? ['./app/tsconfig.electron.json'] : []),
        ],
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
    // @rideport/ridefile is pure: no node:* and no sibling packages (docs/contributors/architecture.md, layout).
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
    // Issue 35: @rideport/files, the files every process keeps, is Node-only and depends on no sibling
    // package, so that every other package may use it.
    files: ['packages/files/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [{ group: ['@rideport/*'], message: '@rideport/files depends on no sibling package.' }],
        },
      ],
    },
  },
  {
    // docs/contributors/architecture.md: "`ridefile`, `client` and `files` depend on nothing of ours.
    // `server` → `ridefile`, `client`, `files`. `sync` → `client`, `ridefile`, `files`."
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
  ...serverLayers(),
  {
    // Issue 35: the host runs the server, the dashboard and the sync engine; nothing runs the host but
    // the command line and the desktop app.
    files: ['packages/host/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              regex: '^@rideport/(cli|app)(/|$)',
              message: 'Only the command line and the app use the host.',
            },
          ],
        },
      ],
    },
  },
  {
    // Issue 35: the dashboard is a plugin of pages that builds on the server's `web` entry only.
    files: ['packages/dashboard/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              regex: '^@rideport/(?!ridefile$|server/web$|server/test-support$)',
              message:
                '@rideport/dashboard builds on @rideport/server/web and @rideport/ridefile (its tests also on @rideport/server/test-support).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/server/src/db/migrations/*.ts'],
    ignores: ['packages/server/src/db/migrations/**/*.test.ts'],
    rules: migrationImports('\\./'),
  },
  {
    // One folder down (frozen/): `../` is still the tree, `../../` is not.
    files: ['packages/server/src/db/migrations/*/**/*.ts'],
    ignores: ['packages/server/src/db/migrations/**/*.test.ts'],
    rules: migrationImports('\\./|\\.\\./(?!\\.\\./)'),
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
              group: ['@rideport/*', '!@rideport/ridefile', '!@rideport/client', '!@rideport/files'],
              message:
                '@rideport/sync depends only on @rideport/client, @rideport/ridefile and @rideport/files.',
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
