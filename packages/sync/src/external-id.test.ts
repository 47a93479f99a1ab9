/**
 * The engine's external_id (issue 20): one per ride, the same on every upload of it, another for
 * another source, path or content; bounded well inside the server's 255 characters.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rideExternalId } from './external-id.js';

const ride = fc.record({
  sourceId: fc.string({ unit: 'binary' }),
  relativePath: fc.string({ unit: 'binary' }),
  sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
});

describe('rideExternalId', () => {
  it('is the same for the same ride and at most 255 characters', () => {
    fc.assert(
      fc.property(ride, (one) => {
        const id = rideExternalId(one);
        expect(rideExternalId({ ...one })).toBe(id);
        expect(id).toMatch(/^rideport-sync:v1:[0-9a-f]{64}$/);
        expect(id.length).toBeLessThanOrEqual(255);
      }),
    );
  });

  it('differs when the source, the path or the content differs', () => {
    fc.assert(
      fc.property(ride, ride, (one, other) => {
        fc.pre(
          one.sourceId !== other.sourceId ||
            one.relativePath !== other.relativePath ||
            one.sha256 !== other.sha256,
        );
        expect(rideExternalId(one)).not.toBe(rideExternalId(other));
      }),
    );
  });

  it('keeps the parts apart: moving characters from the source to the path is another ride', () => {
    expect(rideExternalId({ sourceId: 'a\0b', relativePath: 'c', sha256: '0'.repeat(64) })).not.toBe(
      rideExternalId({ sourceId: 'a', relativePath: 'b\0c', sha256: '0'.repeat(64) }),
    );
  });
});
