import { describe, expect, it } from 'vitest';
import { clientAddress, isLoopbackAddress } from './client-address.js';

describe('clientAddress', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('counts %s as %s', (ip, key) => {
    expect(clientAddress(ip)).toBe(key);
  });
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['::ffff:127.0.0.1', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['192.168.1.10', false],
    ['::2', false],
    ['2001:db8::1', false],
  ])('%s: %s', (ip, loopback) => {
    expect(isLoopbackAddress(ip)).toBe(loopback);
  });
});
