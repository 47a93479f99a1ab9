import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { databaseTargetOf, shownDatabaseUrl } from './target.js';

describe('databaseTargetOf', () => {
  it.each([
    'postgres://rideport@db.example:5432/rideport',
    'postgresql://rideport:secret@10.0.0.5/rideport?sslmode=require',
    // The Unix socket, as libpq's connection URIs name it (PostgreSQL, "Connection URIs").
    'postgres:///rideport?host=/var/run/postgresql',
    'postgres://rideport@/rideport?host=/var/run/postgresql&port=5433',
    'postgresql://%2Fvar%2Frun%2Fpostgresql/rideport',
    'POSTGRES://rideport@db.example/rideport',
  ])('takes %s', (url) => {
    expect(databaseTargetOf(url)).toEqual({ engine: 'postgres', url });
  });

  it('refuses another database, or no URL, in words', () => {
    expect(() => databaseTargetOf('mysql://db/x')).toThrow(
      '--database takes a postgres:// URL; mysql: is not one (SQLite needs no URL: it lives in --data)',
    );
    for (const value of ['rideport.sqlite', '/var/lib/rideport', 'postgres:rideport', '']) {
      expect(() => databaseTargetOf(value)).toThrow(
        `--database takes a PostgreSQL URL such as postgres://rideport@db.example:5432/rideport, not "${value}"`,
      );
    }
  });
});

describe('shownDatabaseUrl', () => {
  it.each([
    ['postgres://rideport:s3cret@db.example:5432/rides', 'postgres://rideport:***@db.example:5432/rides'],
    ['postgres://rideport@db.example/rides', 'postgres://rideport@db.example/rides'],
    // libpq's forms that the WHATWG URL parser refuses: a user with the host in the query (the Unix
    // socket), and the password as a parameter.
    [
      'postgres://rideport@/rides?host=/var/run/postgresql',
      'postgres://rideport@/rides?host=/var/run/postgresql',
    ],
    [
      'postgres://rideport:s3cret@/rides?host=/var/run/postgresql',
      'postgres://rideport:***@/rides?host=/var/run/postgresql',
    ],
    [
      'postgresql:///rides?host=/tmp&password=s3cret&sslmode=disable',
      'postgresql:///rides?host=/tmp&password=***&sslmode=disable',
    ],
    ['postgres://rideport:p%40ss:w0rd@db.example/rides', 'postgres://rideport:***@db.example/rides'],
    [
      'POSTGRES://rideport:s3cret@db.example/rides?PASSWORD=x',
      'POSTGRES://rideport:***@db.example/rides?PASSWORD=***',
    ],
    // An @ in the password itself, unescaped: the last @ ends the user part, as libpq reads it.
    ['postgres://rideport:a@b@db.example/rides', 'postgres://rideport:***@db.example/rides'],
  ])('prints %s as %s', (url, shown) => {
    expect(shownDatabaseUrl(url)).toBe(shown);
  });

  it('never prints the password, whatever the password is', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
        fc.string({ minLength: 4, maxLength: 24 }).filter((p) => !/[/?#]/.test(p)),
        fc.constantFrom('db.example:5432', '10.0.0.5', ''),
        (user, password, host) => {
          const url = `postgres://${user}:${password}@${host}/rides?sslmode=require`;
          const shown = shownDatabaseUrl(url);
          expect(shown).toBe(`postgres://${user}:***@${host}/rides?sslmode=require`);
        },
      ),
    );
  });
});
