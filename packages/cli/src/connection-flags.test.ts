import { describe, expect, it } from 'vitest';
import { connectionLimitsOption } from './connection-flags.js';

describe('connectionLimitsOption', () => {
  it('takes only the flags given, times in seconds', () => {
    expect(connectionLimitsOption({}, 'serve')).toEqual({});
    expect(
      connectionLimitsOption(
        {
          'max-connections': '300',
          'max-connections-per-address': '20',
          'header-timeout': '5',
          'request-timeout': '600',
          'keep-alive-timeout': '2',
          'idle-timeout': '30',
        },
        'serve',
      ),
    ).toEqual({
      maxConnections: 300,
      perAddress: 20,
      headerTimeoutMs: 5000,
      requestTimeoutMs: 600_000,
      keepAliveTimeoutMs: 2000,
      idleTimeoutMs: 30_000,
    });
  });

  it('reads --max-connections-per-address 0 as no limit', () => {
    expect(connectionLimitsOption({ 'max-connections-per-address': '0' }, 'up')).toEqual({
      perAddress: null,
    });
  });

  it.each([
    [{ 'max-connections': '0' }, "up: --max-connections must be a whole number from 1 up, got '0'"],
    [
      { 'header-timeout': '1.5' },
      "up: --header-timeout must be a whole number of seconds from 1 up, got '1.5'",
    ],
    [
      { 'idle-timeout': 'never' },
      "up: --idle-timeout must be a whole number of seconds from 1 up, got 'never'",
    ],
    [
      { 'request-timeout': '5' },
      'up: --request-timeout (5 s) must not be shorter than --header-timeout (10 s)',
    ],
  ])('refuses %j with a usage error', (values, message) => {
    expect(() => connectionLimitsOption(values, 'up')).toThrow(message);
  });
});
