import { describe, expect, it } from 'vitest';
import { formatFromFilename, sniffFormat } from './sniff.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('sniffFormat', () => {
  it('recognises FIT by its header', () => {
    const header = new Uint8Array([14, 0x10, 0, 0, 0, 0, 0, 0, 0x2e, 0x46, 0x49, 0x54, 0, 0]);
    expect(sniffFormat(header)).toBe('fit');
    expect(sniffFormat(new Uint8Array([14, 0x10, 0, 0, 0, 0, 0, 0, 0x2e, 0x46, 0x49, 0x55]))).toBeNull();
  });

  it('recognises XML formats by their root element, whatever comes first or the prefix', () => {
    expect(sniffFormat(text('<gpx version="1.1"/>'))).toBe('gpx');
    expect(sniffFormat(text('\uFEFF<?xml version="1.0"?>\n<!-- a comment with <gpx> -->\n<kml/>'))).toBe(
      'kml',
    );
    expect(
      sniffFormat(
        text('<?xml version="1.0"?><!DOCTYPE x [ <!ENTITY a "<gpx>"> ]><tcx:TrainingCenterDatabase/>'),
      ),
    ).toBe('tcx');
    expect(sniffFormat(text('<html><body/></html>'), 'ride.gpx')).toBeNull();
  });

  it('uses the name only for XML whose root it cannot see', () => {
    const longComment = `<?xml version="1.0"?><!--${' '.repeat(70_000)}-->`;
    expect(sniffFormat(text(longComment), 'ride.gpx.gz')).toBe('gpx');
    expect(sniffFormat(text(longComment))).toBeNull();
    expect(sniffFormat(text('plain text'), 'ride.gpx')).toBeNull();
  });

  it('reads format names from file names', () => {
    expect(formatFromFilename('A.FIT')).toBe('fit');
    expect(formatFromFilename('ride.tcx.gz')).toBe('tcx');
    expect(formatFromFilename('ride.txt')).toBeNull();
    expect(formatFromFilename(undefined)).toBeNull();
  });
});
