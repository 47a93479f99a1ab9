/**
 * `--database <url>` (or RIDEPORT_DATABASE_URL) and the master key every node shares, for `serve` and
 * `admin` on PostgreSQL (issue 18; docs/operators/postgresql.md). Without a URL, both use the SQLite
 * database in the data directory as always.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { databaseTargetOf, parseMasterKey } from '@rideport/server';
import { UsageError } from './errors.js';

export interface SharedDatabase {
  databaseUrl: string;
  masterKey: Buffer;
}

/** The PostgreSQL database and master key asked for, or undefined for the data directory's SQLite. */
export function sharedDatabaseOption(
  values: { database?: string | boolean; 'master-key-file'?: string | boolean; data?: string | boolean },
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  command: string,
): SharedDatabase | undefined {
  const given = typeof values.database === 'string' ? values.database : undefined;
  const url = given ?? nonEmpty(env['RIDEPORT_DATABASE_URL']);
  const keyFile = typeof values['master-key-file'] === 'string' ? values['master-key-file'] : undefined;
  if (url === undefined) {
    if (keyFile !== undefined) {
      throw new UsageError(
        `${command}: --master-key-file goes with --database; SQLite keeps its key in --data`,
      );
    }
    return undefined;
  }
  if (given !== undefined && typeof values.data === 'string') {
    throw new UsageError(`${command}: give --database or --data, not both`);
  }
  const source = given !== undefined ? '--database' : 'RIDEPORT_DATABASE_URL';
  try {
    databaseTargetOf(url);
  } catch (error) {
    throw new UsageError(`${command}: ${source}: ${(error as Error).message.replace(/^--database /, '')}`);
  }
  return { databaseUrl: url, masterKey: sharedMasterKey(keyFile, env, cwd, command) };
}

function sharedMasterKey(
  keyFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  command: string,
): Buffer {
  if (keyFile !== undefined) {
    const path = resolve(cwd, keyFile);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new UsageError(
        `${command}: cannot read the master key file ${path}: ${(error as Error).message}`,
      );
    }
    return keyOrUsage(() => parseMasterKey(text, path), command);
  }
  const fromEnv = nonEmpty(env['RIDEPORT_MASTER_KEY']);
  if (fromEnv !== undefined) return keyOrUsage(() => parseMasterKey(fromEnv, 'RIDEPORT_MASTER_KEY'), command);
  throw new UsageError(
    `${command}: a server on PostgreSQL needs the master key every node shares: give --master-key-file <file> or RIDEPORT_MASTER_KEY (make one with: openssl rand -base64 32)`,
  );
}

function keyOrUsage(parse: () => Buffer, command: string): Buffer {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
