/**
 * Opening a database (db/open.ts): the PostgreSQL driver is loaded only for a PostgreSQL URL, and an
 * installation without it says what to do in words (issue 35).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * Runs `script` (an ES module) in a Node process of its own that loads TypeScript through tsx and in
 * which `pg` resolves as it would where it is not installed: from the root folder, which has no
 * node_modules. Node's own resolution then fails, as it would.
 */
function withoutPg(script: string): { stdout: string; stderr: string; status: number | null } {
  const hooks = `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      return specifier === 'pg' ? next(specifier, { ...context, parentURL: 'file:///' }) : next(specifier, context);
    }`)}`;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '--eval',
      `import { register } from 'node:module';\nregister(${JSON.stringify(hooks)});\n${script}`,
    ],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 60_000 },
  );
  return { stdout: child.stdout, stderr: child.stderr, status: child.status };
}

const openTs = JSON.stringify(new URL('./open.ts', import.meta.url).href);

it('says to install pg when a PostgreSQL database is opened without it, and opens SQLite without it', () => {
  const child = withoutPg(`
    const { openDatabase } = await import(${openTs});
    const sqlite = await openDatabase(':memory:');
    await sqlite.close();
    console.log('sqlite opened');
    try {
      await openDatabase({ engine: 'postgres', url: 'postgres://rideport@127.0.0.1:1/rides' });
    } catch (error) {
      console.log(JSON.stringify({ message: error.message, code: error.code }));
    }`);
  expect(child.stderr).toBe('');
  const [opened, failure] = child.stdout.trim().split('\n');
  expect(opened).toBe('sqlite opened');
  expect(JSON.parse(failure!)).toEqual({
    message:
      'cannot open a PostgreSQL database: its driver, the npm package pg, is not installed; ' +
      'install it (npm install pg) beside Rideport and start again',
    code: 'ERR_MODULE_NOT_FOUND',
  });
}, 60_000);
