/**
 * The store alone, without a server, on the run's database engine (test-database.ts): no upload queue
 * claims tasks and ends them meanwhile. With one person to own what the tests make.
 */
import { openPlatform, type Platform } from '../platform.js';
import { newMasterKey } from '../security/secrets.js';
import { testDatabaseUrl } from './test-database.js';

export async function storeOnly(
  person: { email: string; name: string },
  clock?: () => number,
): Promise<{ platform: Platform; userId: number }> {
  const databaseUrl = await testDatabaseUrl();
  const platform = await openPlatform({
    databasePath: ':memory:',
    ...(databaseUrl === undefined ? {} : { databaseUrl, masterKey: newMasterKey() }),
    baseUrl: 'http://rideport.test',
    ...(clock === undefined ? {} : { clock }),
  });
  const { id: userId } = await platform.store.users.createPerson({
    ...person,
    password: 'correct horse battery',
  });
  return { platform, userId };
}
