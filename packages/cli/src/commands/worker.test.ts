/**
 * `rideport worker` and `serve --no-workers` refused in words where they cannot work (issue 18): on
 * SQLite no process but the server may open the data directory, so nothing else could read uploads.
 * Their work on PostgreSQL is tested in postgres.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, rideport } from '../test-support/run.js';

describe('rideport worker and serve --no-workers on SQLite', () => {
  beforeAll(async () => {
    await buildCli();
  }, 120_000);

  it('refuses a worker without a PostgreSQL database', async () => {
    const run = await rideport(['worker'], undefined, {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'worker: give --database <url> (or RIDEPORT_DATABASE_URL): a worker of its own runs on PostgreSQL; on SQLite `rideport serve` reads its uploads itself',
    );
  });

  it('refuses --workers that is not a whole number from 1 to 256', async () => {
    for (const workers of ['0', '2.5', 'many', '1000']) {
      const run = await rideport(['worker', '--workers', workers], undefined, {});
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        `worker: --workers must be a whole number from 1 to 256, got '${workers}'`,
      );
    }
  });

  it('refuses serve --no-workers on the data directory', async () => {
    const run = await rideport(['serve', '--no-workers'], undefined, {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'serve: --no-workers goes with --database: on SQLite no other process can read the uploads, so the server reads them itself',
    );
  });
});
