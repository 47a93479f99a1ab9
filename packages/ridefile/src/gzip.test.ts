/**
 * What a gzip says it inflates to (issue 36): a hint by which the XML readers size a track's columns,
 * taken from the gzip's own trailer and never above the budget the file is read under.
 */
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { gunzipStreamed } from './gzip.js';

const text = new TextEncoder().encode(
  `<?xml version="1.0"?><gpx>${'<trkpt lat="1" lon="2"/>'.repeat(10_000)}</gpx>`,
);

describe('gunzipStreamed', () => {
  it('expects the length the gzip says, at most the budget', () => {
    expect(gunzipStreamed(gzipSync(text), 1 << 30, 64 * 1024, [])?.expectedLength).toBe(text.length);
    const lying = gzipSync(text);
    lying.fill(0xff, lying.length - 4);
    expect(gunzipStreamed(lying, 1 << 30, 100, [])?.expectedLength).toBe(1 << 30);
  });

  it('expects nothing of a gzip whose trailer says nothing', () => {
    const gzip = gzipSync(text);
    gzip.fill(0, gzip.length - 4);
    expect(gunzipStreamed(gzip, 1 << 30, 100, [])?.expectedLength).toBeUndefined();
  });
});
