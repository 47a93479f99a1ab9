import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitCrc, fitCrcBytewise } from './crc.js';

describe('the FIT CRC', () => {
  it('is CRC-16/ARC (check value of "123456789" is 0xBB3D)', () => {
    const bytes = new TextEncoder().encode('123456789');
    expect(fitCrcBytewise(bytes, 0, bytes.length)).toBe(0xbb3d);
    expect(fitCrc(bytes, 0, bytes.length)).toBe(0xbb3d);
  });

  it('computed eight bytes at a time equals the bytewise definition, for any range of any view', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 7 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (content, viewOffset, a, b) => {
          // A view that does not start at its buffer's beginning, as Node's pooled Buffers do.
          const buffer = new Uint8Array(viewOffset + content.length);
          buffer.set(content, viewOffset);
          const bytes = buffer.subarray(viewOffset);
          const start = Math.floor(Math.min(a, b) * bytes.length);
          const end = Math.floor(Math.max(a, b) * bytes.length);
          expect(fitCrc(bytes, start, end)).toBe(fitCrcBytewise(bytes, start, end));
        },
      ),
      { numRuns: 500 },
    );
  });
});
