/**
 * The account the upload and sync benchmarks upload as, written into the server's database before the
 * server starts (as `rideport admin` would).
 */
import { openPlatform } from '@rideport/server';

export interface BenchAccount {
  apiKey: string;
  authToken: string;
}

export async function createBenchAccount(databasePath: string): Promise<BenchAccount> {
  const platform = await openPlatform({ databasePath, baseUrl: 'http://127.0.0.1' });
  try {
    const { store } = platform;
    const user = await store.users.createPerson({
      email: 'bench@example.com',
      password: 'bench password',
      name: 'Bench Rider',
    });
    const client = await store.apiClients.create(user.id, { name: 'bench' });
    const { token } = await store.authTokens.issue(user.id, client.id);
    return { apiKey: client.apiKey, authToken: token };
  } finally {
    await platform.close();
  }
}
