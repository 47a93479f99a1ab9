/**
 * The account the benchmarks call the server as, written into the server's database before the server
 * starts (as `rideport admin` would).
 */
import { openPlatform, type Store } from '@rideport/server';
import { databaseOptionsOf } from './databases.js';

export interface BenchAccount {
  userId: number;
  apiKey: string;
  authToken: string;
}

/** A user, an API client and an auth token, written through `store`. */
export async function addBenchAccount(store: Store): Promise<BenchAccount> {
  const user = await store.users.createPerson({
    email: 'bench@example.com',
    password: 'bench password',
    name: 'Bench Rider',
  });
  const client = await store.apiClients.create(user.id, { name: 'bench' });
  const { token } = await store.authTokens.issue(user.id, client.id);
  return { userId: user.id, apiKey: client.apiKey, authToken: token };
}

/** The bench account in the database at `location` (a SQLite file or a postgres:// URL). */
export async function createBenchAccount(location: string): Promise<BenchAccount> {
  const platform = await openPlatform({ ...databaseOptionsOf(location), baseUrl: 'http://127.0.0.1' });
  try {
    return await addBenchAccount(platform.store);
  } finally {
    await platform.close();
  }
}
