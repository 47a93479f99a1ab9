/**
 * The webhook outbox as the change log writes it (docs/contributors/decisions.md §6): who is notified of a change, and
 * that the notifications share the change's transaction.
 */
import type { Track } from '@rideport/ridefile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { onlyTrack } from '../test-support/assets.js';
import { createPerson, testServer, type Person, type TestServer } from '../test-support/server.js';
import type { ApiClient } from './index.js';

const ride = (): Track => onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');

let server: TestServer;
let rider: Person;
let developer: Person;

beforeEach(async () => {
  // Not made ready: no dispatcher runs, the outbox stays as written.
  server = await testServer();
  rider = await createPerson(server, 'Anna Rider');
  developer = await createPerson(server, 'Dev Eloper');
});
afterEach(async () => {
  await server.close();
});

const HOOK = 'https://hooks.example.com/rideport';

async function client(
  name: string,
  settings: { webhookUrl?: string | null; webhookAssets?: Array<'route' | 'trip'> } = {},
): Promise<ApiClient> {
  return server.store.apiClients.create(developer.id, { name, webhookUrl: HOOK, ...settings });
}

async function notifiedClients(): Promise<string[]> {
  const all = await server.store.apiClients.listByOwner(developer.id);
  const notified: string[] = [];
  for (const each of all) {
    const rows = await server.store.webhooks.outboxOf(each.id);
    for (const row of rows) notified.push(`${each.name}: ${row.item_type} ${row.item_id} ${row.action}`);
  }
  return notified;
}

describe('who is notified of a change', () => {
  it("every client the owner authorized, with a webhook URL and the item's kind, once", async () => {
    // Auth tokens expire after 30 days without use (docs/contributors/decisions.md §1). That does not withdraw the
    // authorization, so an expired token still counts (store/webhooks.ts); a revoked one does not.
    const expired = await client('expired auth token');
    await server.store.authTokens.issue(rider.id, expired.id);
    server.clock.advance(31 * 24 * 60 * 60 * 1000);

    const byAuthToken = await client('auth token');
    await server.store.authTokens.issue(rider.id, byAuthToken.id);
    // Two tokens for one client: still one notification.
    await server.store.authTokens.issue(rider.id, byAuthToken.id);
    const byOAuth = await client('oauth');
    await server.store.oauth.issueToken(byOAuth.id, rider.id, null, 'user');

    const revoked = await client('revoked');
    await server.store.authTokens.revoke((await server.store.authTokens.issue(rider.id, revoked.id)).row.id);
    const revokedOAuth = await client('revoked oauth');
    const { token } = await server.store.oauth.issueToken(revokedOAuth.id, rider.id, null, 'user');
    await server.store.oauth.revokeToken(token, revokedOAuth.id);
    const noUrl = await client('no webhook URL', { webhookUrl: null });
    await server.store.authTokens.issue(rider.id, noUrl.id);
    const routesOnly = await client('routes only', { webhookAssets: ['route'] });
    await server.store.authTokens.issue(rider.id, routesOnly.id);
    const noKinds = await client('no kinds', { webhookAssets: [] });
    await server.store.authTokens.issue(rider.id, noKinds.id);
    await client('not authorized');
    const someoneElse = await createPerson(server, 'Someone Else');
    await server.store.authTokens.issue(someoneElse.id, (await client('authorized by another user')).id);

    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    expect(await notifiedClients()).toEqual([
      `expired auth token: trip ${trip.row.id} created`,
      `auth token: trip ${trip.row.id} created`,
      `oauth: trip ${trip.row.id} created`,
    ]);
  });

  it('writes who acted, the owner and the time of the change, waiting for delivery', async () => {
    const hooked = await client('hooked');
    await server.store.authTokens.issue(rider.id, hooked.id);
    const trip = await server.store.assets.createFromTrack(rider.id, ride());
    server.clock.advance(5000);
    await server.store.assets.update('trip', trip.row.id, developer.id, { name: 'Renamed' });
    const rows = await server.store.webhooks.outboxOf(hooked.id);
    expect(rows.map((row) => ({ ...row, id: undefined }))).toEqual([
      {
        id: undefined,
        api_client_id: hooked.id,
        user_id: rider.id,
        item_type: 'trip',
        item_id: trip.row.id,
        item_user_id: rider.id,
        action: 'created',
        created_at: server.clock.now - 5000,
        delivery_id: null,
        next_attempt_at: server.clock.now - 5000,
        attempts: 0,
        delivered_at: null,
        failed_at: null,
        last_error: null,
      },
      expect.objectContaining({
        user_id: developer.id,
        item_user_id: rider.id,
        action: 'updated',
        created_at: server.clock.now,
      }),
    ]);
  });

  it('writes nothing when the change rolls back, and everything when it commits', async () => {
    const hooked = await client('hooked');
    await server.store.authTokens.issue(rider.id, hooked.id);
    await expect(
      server.store.transaction(async (trx) => {
        await server.store.assets.createFromTrack(rider.id, ride(), {}, trx);
        throw new Error('the upload failed half-way');
      }),
    ).rejects.toThrow('the upload failed half-way');
    expect(await server.store.webhooks.outboxOf(hooked.id)).toEqual([]);
    expect(await server.store.changes.since(rider.id, 0, ['route', 'trip'])).toEqual([]);

    await server.store.transaction(async (trx) => {
      await server.store.assets.createFromTrack(rider.id, ride(), {}, trx);
      await server.store.assets.createFromTrack(rider.id, ride(), {}, trx);
    });
    expect(await server.store.webhooks.outboxOf(hooked.id)).toHaveLength(2);
  });

  it("notifies an organization's clients of the organization's assets", async () => {
    const organization = await server.store.users.createOrganization('Club', developer.id);
    const hooked = await client('org hook');
    await server.store.authTokens.issue(organization.id, hooked.id);
    const trip = await server.store.assets.createFromTrack(organization.id, ride());
    expect((await server.store.webhooks.outboxOf(hooked.id)).map((row) => row.item_id)).toEqual([
      trip.row.id,
    ]);
  });
});
