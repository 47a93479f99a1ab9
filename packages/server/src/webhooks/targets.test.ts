import type { LookupAddress } from 'node:dns';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryDelayMs } from './backoff.js';
import { guardedLookup, refusalOfAddress, refusalOfUrl, TARGET_REFUSED } from './targets.js';

const STRICT = { allowPrivateTargets: false };
const LOCAL = { allowPrivateTargets: true };

const ipv4 = (bytes: readonly number[]): string => bytes.join('.');
const byte = fc.integer({ min: 0, max: 255 });

describe('refusalOfAddress', () => {
  it('refuses link-local and metadata addresses whatever the configuration', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      'fe80::1',
      'febf:ffff::1',
      'fd00:ec2::254',
      '100.100.100.200',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      '224.0.0.1',
      '255.255.255.255',
      'ff02::1',
    ]) {
      expect(refusalOfAddress(address, STRICT), address).not.toBeNull();
      expect(refusalOfAddress(address, LOCAL), address).not.toBeNull();
    }
  });

  it('refuses loopback and private addresses unless they are allowed', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '198.18.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::7f00:1',
      '64:ff9b::7f00:1',
    ]) {
      expect(refusalOfAddress(address, STRICT), address).not.toBeNull();
      expect(refusalOfAddress(address, LOCAL), address).toBeNull();
    }
  });

  it("refuses this host's own addresses like loopback unless private targets are allowed (issue 17)", () => {
    const ownAddresses = (): string[] => ['203.0.113.9', '2001:db8::9', 'fe80::1%eth0', 'not an address'];
    const strict = { ...STRICT, ownAddresses };
    const local = { ...LOCAL, ownAddresses };
    for (const address of ['203.0.113.9', '::ffff:203.0.113.9', '2001:db8::9', '2001:0db8:0:0::9']) {
      expect(refusalOfAddress(address, strict), address).toMatch(/is an address of this server$/);
      expect(refusalOfAddress(address, local), address).toBeNull();
    }
    expect(refusalOfAddress('203.0.113.10', strict)).toBeNull();
    // The host's real interfaces by default: loopback is among them and stays "loopback".
    expect(refusalOfAddress('127.0.0.1', STRICT)).toBe('127.0.0.1 is a loopback address');
  });

  it('allows public addresses', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      expect(refusalOfAddress(address, STRICT), address).toBeNull();
    }
  });

  it('judges every address of a refused range alike, in IPv4 and IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(byte, byte, byte, (b, c, d) => {
        for (const address of [ipv4([169, 254, c, d]), `::ffff:${ipv4([169, 254, c, d])}`]) {
          expect(refusalOfAddress(address, LOCAL)).toMatch(/link-local|metadata/);
        }
        for (const address of [ipv4([10, b, c, d]), ipv4([127, b, c, d]), ipv4([192, 168, c, d])]) {
          expect(refusalOfAddress(address, STRICT)).not.toBeNull();
          expect(refusalOfAddress(`::ffff:${address}`, STRICT)).not.toBeNull();
          expect(refusalOfAddress(address, LOCAL)).toBeNull();
        }
        expect(refusalOfAddress(ipv4([172, 16 + (b % 16), c, d]), STRICT)).not.toBeNull();
      }),
    );
  });
});

describe('refusalOfUrl', () => {
  it('refuses metadata names and literal addresses before anything is resolved', () => {
    expect(refusalOfUrl(new URL('http://metadata.google.internal./x'), LOCAL)).toMatch(/metadata host/);
    expect(refusalOfUrl(new URL('http://METADATA.goog/x'), LOCAL)).toMatch(/metadata host/);
    expect(refusalOfUrl(new URL('http://[fe80::1]/'), LOCAL)).toMatch(/link-local/);
    expect(refusalOfUrl(new URL('http://0x7f.1/'), STRICT)).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(refusalOfUrl(new URL('http://[::1]:8080/'), STRICT)).toMatch(/loopback/);
    expect(refusalOfUrl(new URL('ftp://example.com/'), LOCAL)).toMatch(/not http or https/);
    expect(refusalOfUrl(new URL('https://hooks.example.com/x'), STRICT)).toBeNull();
    expect(refusalOfUrl(new URL('http://127.0.0.1:4242/'), LOCAL)).toBeNull();
  });
});

describe('guardedLookup', () => {
  const resolver = (addresses: LookupAddress[]) => (): Promise<LookupAddress[]> => Promise.resolve(addresses);

  function lookUp(
    lookup: ReturnType<typeof guardedLookup>,
    all: boolean,
  ): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: unknown }> {
    return new Promise((resolve) => {
      lookup('hooks.example', { all }, (error, address, family) => {
        resolve({ error, address, family });
      });
    });
  }

  it('answers in both shapes Node asks for', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    const lookup = guardedLookup(STRICT, resolver(addresses));
    expect(await lookUp(lookup, true)).toMatchObject({ error: null, address: addresses });
    expect(await lookUp(lookup, false)).toMatchObject({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const lookup = guardedLookup(
      LOCAL,
      resolver([
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ]),
    );
    for (const all of [true, false]) {
      const { error } = await lookUp(lookup, all);
      expect(error?.code).toBe(TARGET_REFUSED);
      expect(error?.message).toBe('hooks.example: 169.254.169.254 is a cloud metadata address');
    }
  });

  it('passes resolver errors on', async () => {
    const failing = (): Promise<LookupAddress[]> =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect((await lookUp(guardedLookup(STRICT, failing), false)).error?.code).toBe('ENOTFOUND');
    expect((await lookUp(guardedLookup(STRICT, resolver([])), true)).error?.code).toBe('ENOTFOUND');
  });
});

describe('retry schedule', () => {
  const policy = { backoffBaseMs: 1000, backoffCapMs: 60_000, giveUpAfterMs: 24 * 60 * 60 * 1000 };

  it('doubles from the base up to the cap, jittered within the upper half', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 1))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(retryDelayMs(3, policy, () => 0)).toBe(2000);
    expect(retryDelayMs(50, policy, () => 1)).toBe(60_000);
    expect(retryDelayMs(5000, policy, () => 0.5)).toBe(45_000);
  });

  it('retries until 24 hours after the change, the last time at the deadline itself', () => {
    const changed = 1_000_000;
    const deadline = changed + policy.giveUpAfterMs;
    expect(nextAttemptAt(1, changed + 10, changed, policy, () => 1)).toBe(changed + 1010);
    expect(nextAttemptAt(30, deadline - 5, changed, policy, () => 1)).toBe(deadline);
    expect(nextAttemptAt(31, deadline, changed, policy)).toBeNull();
  });
});
