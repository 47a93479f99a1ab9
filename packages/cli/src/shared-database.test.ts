import { describe, expect, it } from 'vitest';
import { sharedDatabaseOption, shownDatabaseUrl } from './shared-database.js';

describe('--database and the shared master key (issue 18)', () => {
  it('never prints a password of the URL', () => {
    expect(shownDatabaseUrl('postgres://rideport:s3cret@db.example:5432/rides')).toBe(
      'postgres://rideport:***@db.example:5432/rides',
    );
    expect(shownDatabaseUrl('postgres://rideport@db.example/rides')).toBe(
      'postgres://rideport@db.example/rides',
    );
    // libpq's forms that the WHATWG URL parser refuses: a user with the host in the query (the Unix
    // socket), and the password as a parameter.
    expect(shownDatabaseUrl('postgres://rideport@/rides?host=/var/run/postgresql')).toBe(
      'postgres://rideport@/rides?host=/var/run/postgresql',
    );
    expect(shownDatabaseUrl('postgres://rideport:s3cret@/rides?host=/var/run/postgresql')).toBe(
      'postgres://rideport:***@/rides?host=/var/run/postgresql',
    );
    expect(shownDatabaseUrl('postgresql:///rides?host=/tmp&password=s3cret&sslmode=disable')).toBe(
      'postgresql:///rides?host=/tmp&password=***&sslmode=disable',
    );
    expect(shownDatabaseUrl('postgres://rideport:p%40ss:w0rd@db.example/rides')).toBe(
      'postgres://rideport:***@db.example/rides',
    );
  });

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
