import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_LIMITS,
  MAX_UPLOAD_BYTES,
  resolveConnectionLimits,
  resolveLimits,
  resolveOptions,
} from './options.js';

describe('resolveLimits', () => {
  it('takes the defaults, and an upload limit up to 4 GiB less a byte', () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({ uploadBytes: MAX_UPLOAD_BYTES }).uploadBytes).toBe(MAX_UPLOAD_BYTES);
    // What the upload is received into can be made at that size (legacy/upload-intake.ts).
    expect(new ArrayBuffer(0, { maxByteLength: MAX_UPLOAD_BYTES }).maxByteLength).toBe(MAX_UPLOAD_BYTES);
  });

  it.each([
    [{ uploadBytes: 0 }, 'limits.uploadBytes must be a whole number from 1 up, got 0'],
    [{ trackPoints: 1.5 }, 'limits.trackPoints must be a whole number from 1 up, got 1.5'],
    [{ gunzipBytes: Number.NaN }, 'limits.gunzipBytes must be a whole number from 1 up, got NaN'],
    [
      { uploadBytes: 2 ** 32 },
      'limits.uploadBytes must be at most 4294967295 (4 GiB less a byte), got 4294967296',
    ],
  ])('refuses %j', (limits, message) => {
    expect(() => resolveLimits(limits)).toThrow(message);
  });
});

describe('resolveConnectionLimits', () => {
  it('allows 1000 connections, or half the open-file limit when that is lower', () => {
    expect(resolveConnectionLimits({}, undefined).maxConnections).toBe(1000);
    expect(resolveConnectionLimits({}, 20_000).maxConnections).toBe(1000);
    expect(resolveConnectionLimits({}, 1024).maxConnections).toBe(512);
    expect(resolveConnectionLimits({ maxConnections: 5000 }, 1024).maxConnections).toBe(5000);
  });

  it('bounds header and request times well under Node’s own defaults (60 s and 5 minutes)', () => {
    expect(resolveConnectionLimits({}, undefined)).toMatchObject({
      ...DEFAULT_CONNECTION_LIMITS,
      headerTimeoutMs: 10_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 5_000,
      perAddress: 100,
      perAddressOnLoopback: false,
    });
  });

  it.each([
    [{ maxConnections: 0 }, 'connections.maxConnections must be a whole number from 1 up, got 0'],
    [{ perAddress: 1.5 }, 'connections.perAddress must be a whole number from 1 up, got 1.5'],
    [
      { headerTimeoutMs: Infinity },
      'connections.headerTimeoutMs must be a whole number from 1 up, got Infinity',
    ],
    [
      { headerTimeoutMs: 30_000, requestTimeoutMs: 20_000 },
      'connections.requestTimeoutMs (20000) must not be shorter than headerTimeoutMs (30000)',
    ],
  ])('refuses %j', (limits, message) => {
    expect(() => resolveConnectionLimits(limits, undefined)).toThrow(message);
  });

  it('takes null for no per-address limit', () => {
    expect(resolveConnectionLimits({ perAddress: null }, undefined).perAddress).toBeNull();
  });
});

describe('queue workers (issue 18, serve --no-workers)', () => {
  const base = { databasePath: ':memory:', baseUrl: 'http://127.0.0.1:4242' };

  it('takes no workers on PostgreSQL, where `rideport worker` processes read the uploads', () => {
    const options = resolveOptions({ ...base, databaseUrl: 'postgres://db/rides', queue: { workers: 0 } });
    expect(options.queue.workers).toBe(0);
  });

  it('refuses no workers on SQLite, where no other process could read the uploads, and a fraction anywhere', () => {
    expect(() => resolveOptions({ ...base, queue: { workers: 0 } })).toThrow(
      'queue.workers 0 needs PostgreSQL: on SQLite no other process can read the uploads',
    );
    expect(() => resolveOptions({ ...base, queue: { workers: 1.5 } })).toThrow(
      'queue.workers must be a whole number, 0 or more, got 1.5',
    );
  });
});
