/**
 * The master key client secrets are derived from (security/secrets.ts): a file beside the database,
 * created with owner-only permissions on first start.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MASTER_KEY_FILE } from './data-directory/layout.js';
import { newMasterKey } from './security/secrets.js';

const KEY_BYTES = 32;

export function loadMasterKey(databasePath: string): Buffer {
  if (databasePath === ':memory:') return newMasterKey();
  const path = join(dirname(databasePath), MASTER_KEY_FILE);
  if (!existsSync(path)) {
    // 'wx': two servers starting at once cannot both write a key; the loser reads the winner's.
    try {
      writeFileSync(path, newMasterKey().toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${path} does not hold a ${KEY_BYTES}-byte key`);
  return key;
}
