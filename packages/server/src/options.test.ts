import { describe, expect, it } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS, resolveConnectionLimits } from './options.js';

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
