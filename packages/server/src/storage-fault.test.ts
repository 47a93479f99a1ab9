import { describe, expect, it } from 'vitest';
import { DISK_FULL_PROBLEM } from './disk-full.js';
import { DatabaseUnreachableError } from './errors.js';
import {
  DATABASE_UNREACHABLE_PROBLEM,
  DATABASE_UNREACHABLE_RETRY_SECONDS,
  faultWords,
  passingStorageFault,
  StorageFaultNotice,
  storageFaultError,
} from './storage-fault.js';

const unreachable = new DatabaseUnreachableError('cannot connect to the database: no server listens', {
  cause: new Error('connect ECONNREFUSED 127.0.0.1:5432'),
  code: 'ECONNREFUSED',
});
const diskFull = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('storage faults (issues 17 and 18)', () => {
  it('answers a database out of reach 503 with Retry-After, saying nothing of where it is', () => {
    const answer = storageFaultError(unreachable);
    expect(answer).toMatchObject({
      statusCode: 503,
      problems: [DATABASE_UNREACHABLE_PROBLEM],
      retryAfterSeconds: DATABASE_UNREACHABLE_RETRY_SECONDS,
    });
    expect(answer!.message).not.toMatch(/5432|ECONNREFUSED/);
  });

  it('answers a full disk 507, as before', () => {
    expect(storageFaultError(diskFull)).toMatchObject({ statusCode: 507, problems: [DISK_FULL_PROBLEM] });
  });

  it('finds a fault wrapped as a cause, or as the OAuth library wraps it', () => {
    const wrapped = new Error('storing the rides failed', { cause: unreachable });
    const oauth = Object.assign(new Error('server_error'), { inner: diskFull });
    expect(passingStorageFault(wrapped)).toBe('database unreachable');
    expect(passingStorageFault(oauth)).toBe('disk full');
    expect(storageFaultError(wrapped)?.statusCode).toBe(503);
  });

  it('leaves every other error alone', () => {
    for (const error of [new Error('boom'), { code: 'ECONNREFUSED' }, null, 'text', undefined]) {
      expect(passingStorageFault(error)).toBeNull();
      expect(storageFaultError(error)).toBeNull();
    }
  });
});

describe('faultWords', () => {
  it('says the same fault the same way in every part, naming the part and what waits', () => {
    expect(faultWords('upload queue', 'uploads')).toEqual({
      'disk full': {
        began: "upload queue: the server's disk is full; uploads wait until there is space again",
        passed: 'upload queue: there is disk space again; waiting uploads go on',
      },
      'database unreachable': {
        began: 'upload queue: the database cannot be reached; uploads wait until it can',
        passed: 'upload queue: the database can be reached again; waiting uploads go on',
      },
    });
    expect(faultWords('webhooks', 'deliveries')['database unreachable']).toEqual({
      began: 'webhooks: the database cannot be reached; deliveries wait until it can',
      passed: 'webhooks: the database can be reached again; waiting deliveries go on',
    });
  });
});

describe('StorageFaultNotice', () => {
  const words = {
    'disk full': { began: 'disk full began', passed: 'disk full passed' },
    'database unreachable': { began: 'outage began', passed: 'outage passed' },
  };

  it('says a fault once when it begins and once when it has passed, however often it is met', () => {
    const said: string[] = [];
    const notice = new StorageFaultNotice(
      {
        warn: (_fields: object, message: string) => said.push(`warn ${message}`),
        info: (message: string) => said.push(`info ${message}`),
      } as never,
      words,
    );
    notice.succeeded();
    expect([notice.failed(unreachable), notice.failed(unreachable), notice.failed(unreachable)]).toEqual([
      true,
      true,
      true,
    ]);
    notice.succeeded();
    notice.succeeded();
    // A full disk after an outage is another fault, said again.
    notice.failed(unreachable);
    notice.failed(diskFull);
    notice.succeeded();
    expect(said).toEqual([
      'warn outage began',
      'info outage passed',
      'warn outage began',
      'warn disk full began',
      'info disk full passed',
    ]);
  });

  it('leaves every other error to its caller', () => {
    const said: string[] = [];
    const notice = new StorageFaultNotice(
      { warn: () => said.push('warn'), info: () => said.push('info') } as never,
      words,
    );
    expect(notice.failed(new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed'))).toBe(false);
    notice.succeeded();
    expect(said).toEqual([]);
  });
});
