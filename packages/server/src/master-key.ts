/**
 * The master key client secrets are derived from (security/secrets.ts): a file beside the database,
 * created with owner-only permissions on first start.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MASTER_KEY_FILE } from './data-layout.js';
import type { ResolvedOptions } from './options.js';
import { newMasterKey } from './security/secrets.js';

const KEY_BYTES = 32;

/** The key given, or the SQLite database's own; a server on PostgreSQL must be given one (issue 18). */
export function masterKeyFor(options: ResolvedOptions, given: Buffer | undefined): Buffer {
  if (given !== undefined) return given;
  if (options.database.engine === 'postgres') {
    throw new Error(
      'a server on PostgreSQL needs the master key that every node shares: give it with --master-key-file <file> or RIDEPORT_MASTER_KEY (32 bytes in base64; `openssl rand -base64 32` makes one)',
    );
  }
  return loadMasterKey(options.databasePath);
}

/** `text`, the base64 of a 32-byte key (a key file's content, RIDEPORT_MASTER_KEY); `source` names it. */
export function parseMasterKey(text: string, source: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(`${source} does not hold a ${KEY_BYTES}-byte key in base64 (openssl rand -base64 32)`);
  }
  return key;
}

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
  return parseMasterKey(readFileSync(path, 'utf8'), path);
}
