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

/** A user, an API client and an auth token, written through `store`; `rider` tells several apart. */
export async function addBenchAccount(store: Store, rider = 0): Promise<BenchAccount> {
  const user = await store.users.createPerson({
    email: rider === 0 ? 'bench@example.com' : `bench-${rider}@example.com`,
    password: 'bench password',
    name: rider === 0 ? 'Bench Rider' : `Bench Rider ${rider}`,
  });
  const client = await store.apiClients.create(user.id, { name: 'bench' });
  const { token } = await store.authTokens.issue(user.id, client.id);
  return { userId: user.id, apiKey: client.apiKey, authToken: token };
}

/** The bench account in the database at `location` (a SQLite file or a postgres:// URL). */
export async function createBenchAccount(location: string): Promise<BenchAccount> {
  const [account] = await createBenchAccounts(location, 1);
  return account!;
}

/** `count` bench accounts, each a rider of their own, in the database at `location`. */
export async function createBenchAccounts(location: string, count: number): Promise<BenchAccount[]> {
  const platform = await openPlatform({ ...databaseOptionsOf(location), baseUrl: 'http://127.0.0.1' });
  try {
    const accounts: BenchAccount[] = [];
    for (let rider = 0; rider < count; rider++) accounts.push(await addBenchAccount(platform.store, rider));
    return accounts;
  } finally {
    await platform.close();
  }
}
