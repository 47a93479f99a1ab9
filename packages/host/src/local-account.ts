/**
 * The account a host of the embedded server syncs as: `rideport up` and the desktop app (issue 6: "a
 * local account and API client created on first run"; issue 7). Its API key and auth token live in
 * `local-account.json` in the data directory (mode 0600): the server stores only hashes of tokens, and
 * the sync engine needs the token itself. The host owns the database, so an expired or revoked token
 * is simply replaced; the password is returned once, at creation, for signing in to the dashboard by
 * hand (the desktop app signs its window in with a one-time link instead).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_ACCOUNT_FILE, machineTimeZone, type Store } from '@rideport/server';
import { writeFileAtomically } from '@rideport/files';

export const LOCAL_ACCOUNT_EMAIL = 'rider@rideport.localhost';
const CLIENT_NAME = 'Rideport desktop sync';

export interface LocalAccount {
  userId: number;
  email: string;
  apiKey: string;
  authToken: string;
}

export interface EnsuredAccount {
  account: LocalAccount;
  /** the new account's password, only on the run that created it */
  newPassword: string | null;
  /** true when the saved token no longer worked and a new one was issued */
  tokenRenewed: boolean;
}

function accountFile(dataDirectory: string): string {
  return join(dataDirectory, LOCAL_ACCOUNT_FILE);
}

async function readSaved(dataDirectory: string): Promise<LocalAccount | null> {
  try {
    const saved = JSON.parse(await readFile(accountFile(dataDirectory), 'utf8')) as Partial<LocalAccount>;
    if (
      typeof saved.userId === 'number' &&
      typeof saved.email === 'string' &&
      typeof saved.apiKey === 'string' &&
      typeof saved.authToken === 'string'
    ) {
      return saved as LocalAccount;
    }
    return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return null;
    throw error;
  }
}

/** Written whole or not at all, readable by its owner only. */
async function save(dataDirectory: string, account: LocalAccount): Promise<void> {
  await writeFileAtomically(accountFile(dataDirectory), `${JSON.stringify(account, null, 2)}\n`, {
    mode: 0o600,
    folderMode: 0o700,
  });
}

/** The local account, its API client and a working auth token, created or repaired as needed. */
export async function ensureLocalAccount(store: Store, dataDirectory: string): Promise<EnsuredAccount> {
  const saved = await readSaved(dataDirectory);
  let newPassword: string | null = null;
  let user = saved === null ? undefined : await store.users.findById(saved.userId);
  user ??= await store.users.findByEmail(LOCAL_ACCOUNT_EMAIL);
  if (user === undefined) {
    newPassword = randomBytes(12).toString('base64url');
    user = await store.users.createPerson({
      email: LOCAL_ACCOUNT_EMAIL,
      password: newPassword,
      name: 'Rider',
    });
  }
  // The machine's zone is the rider's until they choose one (issue 19).
  await store.preferences.defaultTimeZone(user.id, machineTimeZone());
  let client =
    saved === null || saved.userId !== user.id
      ? undefined
      : await store.apiClients.findByApiKey(saved.apiKey);
  client ??= await store.apiClients.create(user.id, { name: CLIENT_NAME, redirectUris: [] });
  const usable =
    saved !== null &&
    saved.apiKey === client.apiKey &&
    (await store.authTokens.check(saved.authToken, client.id)).ok;
  const authToken = usable ? saved.authToken : (await store.authTokens.issue(user.id, client.id)).token;
  const account: LocalAccount = {
    userId: user.id,
    email: user.email ?? LOCAL_ACCOUNT_EMAIL,
    apiKey: client.apiKey,
    authToken,
  };
  if (!usable) await save(dataDirectory, account);
  return { account, newPassword, tokenRenewed: saved !== null && !usable };
}
