import { describe, expect, it } from 'vitest';
import { databaseTargetOf } from './target.js';

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
