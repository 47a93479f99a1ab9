/**
 * Where `serve`, `up` and `admin` keep their data (design.md: the per-user data directory from
 * env-paths unless `--data` says otherwise), and the database file in it.
 */
import { resolve } from 'node:path';
import { databasePathIn } from '@rideport/server';
import envPaths from 'env-paths';

export function dataDirectory(option: string | undefined, cwd: string): string {
  if (option !== undefined && option !== '') return resolve(cwd, option);
  return envPaths('rideport', { suffix: '' }).data;
}

export function databasePath(option: string | undefined, cwd: string): string {
  return databasePathIn(dataDirectory(option, cwd));
}
