import { describe, expect, it } from 'vitest';
import { channelCounts } from './channels.js';

describe('channelCounts', () => {
  it('counts the keys present, in the specification order, and omits absent ones', () => {
    const counts = channelCounts([{ T: 20, t: 1, h: 100 }, { t: 2 }, { x: 8, y: 47, t: 3, d: 0, s: 1 }]);
    expect(counts).toEqual({ x: 1, y: 1, t: 3, h: 1, s: 1, d: 1, T: 1 });
    expect(Object.keys(counts)).toEqual(['x', 'y', 't', 'h', 's', 'd', 'T']);
  });

  it('is empty for no points', () => {
    expect(channelCounts([])).toEqual({});
  });
});
