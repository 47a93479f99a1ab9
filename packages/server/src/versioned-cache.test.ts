import { describe, expect, it } from 'vitest';
import { VersionedCache } from './versioned-cache.js';

describe('VersionedCache', () => {
  it('hands a value out only at the version it was stored with, and forgets it at any other', () => {
    const cache = new VersionedCache<string>(10);
    cache.set('a', 1, 'first');
    expect(cache.get('a', 1)).toBe('first');
    expect(cache.get('a', 2)).toBeUndefined();
    // A miss drops the stale value: it is not served again even at its own version.
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.weight).toBe(0);
  });

  it('keeps the total weight within its bound, least recently used out first', () => {
    const cache = new VersionedCache<Buffer>(10, (body) => body.length);
    cache.set('a', 1, Buffer.alloc(4));
    cache.set('b', 1, Buffer.alloc(4));
    expect(cache.get('a', 1)).toBeDefined(); // now b is the least recently used
    cache.set('c', 1, Buffer.alloc(4));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBeDefined();
    expect(cache.get('c', 1)).toBeDefined();
    expect(cache.weight).toBe(8);
    // Heavier than the whole bound: never kept, and the entry it replaces is gone too.
    cache.set('a', 2, Buffer.alloc(11));
    expect(cache.get('a', 2)).toBeUndefined();
    expect(cache.weight).toBe(4);
  });

  it('replaces a key in place, counting its weight once', () => {
    const cache = new VersionedCache<string>(2);
    cache.set('a', 1, 'one');
    cache.set('a', 2, 'two');
    cache.set('b', 1, 'bee');
    expect(cache.get('a', 2)).toBe('two');
    expect(cache.get('b', 1)).toBe('bee');
    expect(cache.weight).toBe(2);
  });
});
