import { describe, expect, it } from 'vitest';
import { sharedDatabaseOption } from './shared-database.js';

describe('--database and the shared master key (issue 18)', () => {
  it('is SQLite without a URL, and refuses a key file without one', () => {
    expect(sharedDatabaseOption({}, {}, '/', 'serve')).toBeUndefined();
    expect(() => sharedDatabaseOption({ 'master-key-file': 'k' }, {}, '/', 'serve')).toThrow(
      'serve: --master-key-file goes with --database; SQLite keeps its key in --data',
    );
  });

  it('refuses --data beside --database, and names an unreadable key file', () => {
    const url = 'postgres://db.example/rides';
    expect(() => sharedDatabaseOption({ database: url, data: '/d' }, {}, '/', 'serve')).toThrow(
      'serve: give --database or --data, not both',
    );
    expect(() =>
      sharedDatabaseOption({ database: url, 'master-key-file': 'missing.key' }, {}, '/nowhere', 'serve'),
    ).toThrow(/^serve: cannot read the master key file \/nowhere\/missing\.key: /);
  });

  it('takes the URL and key from the environment', () => {
    const key = Buffer.alloc(32, 1);
    const shared = sharedDatabaseOption(
      {},
      { RIDEPORT_DATABASE_URL: 'postgresql://db/x', RIDEPORT_MASTER_KEY: key.toString('base64') },
      '/',
      'admin purge-tasks',
    );
    expect(shared).toEqual({ databaseUrl: 'postgresql://db/x', masterKey: key });
  });
});
