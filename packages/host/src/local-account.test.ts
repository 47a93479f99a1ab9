/**
 * The account `rideport up` and the desktop app sync as (local-account.ts): created once, repaired when
 * its token no longer works, and given the machine's time zone until the rider chooses one (issue 19).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineTimeZone } from '@rideport/server';
import { DEFAULT_PREFERENCES, testServer, type TestServer } from '@rideport/server/test-support';
import { canonicalTimeZone } from '@rideport/server/web';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalAccount } from './local-account.js';

let server: TestServer;

beforeEach(async () => {
  server = await testServer();
});
afterEach(async () => {
  await server.close();
});

describe('ensureLocalAccount', () => {
  it("gives the local account the machine's zone once, and leaves a rider's own choice alone", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'rideport-preferences-'));
    try {
      const { account } = await ensureLocalAccount(server.store, directory);
      const zone = machineTimeZone();
      expect((await server.store.preferences.get(account.userId)).timeZone).toBe(
        canonicalTimeZone(zone) === zone ? zone : null,
      );
      await server.store.preferences.save(account.userId, { ...DEFAULT_PREFERENCES, timeZone: null });
      await ensureLocalAccount(server.store, directory);
      expect((await server.store.preferences.get(account.userId)).timeZone).toBeNull();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
