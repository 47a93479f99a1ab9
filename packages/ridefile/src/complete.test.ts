import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  corpusFiles,
  fixturePath,
  readCorpus,
  readFixture,
} from '../../../test/support/corpus.js';
import { checkRideFileComplete, type Completeness } from './complete.js';
import { RideFileWarningCode } from './errors.js';
import { fitCrc } from './fit/crc.js';
import type { RideFileFormat } from './model.js';
import { parseRideFile } from './parse.js';

/**
 * checkRideFileComplete (docs/contributors/architecture.md, "Sync engine": a file still being written, or cut off when the
 * device was unplugged, is told from a whole one without parsing points).
 */

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function expectComplete(bytes: Uint8Array, format: RideFileFormat): void {
  expect(checkRideFileComplete(bytes)).toEqual({ complete: true, format });
}

/** The reason an incomplete verdict gives (and fails the test on a complete one). */
function reasonOf(bytes: Uint8Array): string {
  const result: Completeness = checkRideFileComplete(bytes);
  if (result.complete) throw new Error(`expected incomplete, got complete ${result.format}`);
  expect(result.reason.length).toBeGreaterThan(0);
  return result.reason;
}

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** A FIT file around `data`: a 14-byte header (its CRC 0, as many devices write it) and the file CRC. */
function fitFile(data: Uint8Array, declaredSize = data.length, headerCrc = 0): Uint8Array {
  const bytes = new Uint8Array(14 + data.length + 2);
  const view = new DataView(bytes.buffer);
  bytes[0] = 14;
  bytes[1] = 0x20;
  view.setUint16(2, 2132, true);
  view.setUint32(4, declaredSize, true);
  bytes.set(encode('.FIT'), 8);
  view.setUint16(12, headerCrc, true);
  bytes.set(data, 14);
  view.setUint16(14 + data.length, fitCrc(bytes, 0, 14 + data.length), true);
  return bytes;
}

/** Where each FIT file of a chained input ends (after its CRC): cutting there leaves whole files. */
function fitFileEnds(bytes: Uint8Array): Set<number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ends = new Set<number>();
  let position = 0;
  while (position + 12 <= bytes.length) {
    const dataSize = view.getUint32(position + 4, true);
    position += bytes[position]! + dataSize + 2;
    ends.add(position);
  }
  return ends;
}

/** The offset of the `>` that ends the root's closing tag (nothing in these files follows the root). */
function rootCloseOffset(bytes: Uint8Array): number {
  return bytes.lastIndexOf(0x3e);
}

/** An offset inside a tag (just after its `<`) near the middle of an XML file. */
function midTagOffset(bytes: Uint8Array): number {
  return bytes.indexOf(0x3c, bytes.length >> 1) + 2;
}

// ---------------------------------------------------------------------------------------------------

/** Hand-written fixtures that are damaged on purpose, with what the reason must mention. */
const DAMAGED_FIXTURES: Readonly<Record<string, RegExp>> = {
  'fit/bad-crc.fit': /CRC/,
  'fit/truncated.fit': /declares \d+ bytes of data but holds only \d+/,
  'gpx/truncated.gpx': /ends, inside <ele>, before its root element <\/gpx> is closed/,
  'tcx/truncated.tcx': /before its root element <\/TrainingCenterDatabase> is closed/,
  'kml/truncated.kml': /before its root element <\/kml> is closed/,
  // saxes never expands the DOCTYPE's entities: their use is an undefined entity (sax.ts does the same).
  'gpx/billion-laughs.gpx': /not well formed .*undefined entity/,
  'tcx/billion-laughs.tcx': /not well formed .*undefined entity/,
  'kml/billion-laughs.kml': /not well formed .*undefined entity/,
};

/** Corpus files that parseRideFile reads with a truncation or CRC warning (SOURCES.md: MALFORMED). */
const DAMAGED_CORPUS: ReadonlySet<string> = new Set([
  'fitdecode__activity-activity-filecrc.fit',
  'fitdecode__activity-filecrc.fit',
  'fitdecode__activity-unexpected-eof.fit',
  'fitparse__nick.fit',
  'fitparse__strava-android-app-201.10-b1218918.fit',
  // not flagged MALFORMED in SOURCES.md, but its file CRC does not match (sdkCRC=BAD there)
  'gpsbabel__lezyne_super_gps-garmin_fit-sample-bad-endian.fit',
]);

const DAMAGE_WARNINGS: ReadonlySet<string> = new Set([
  RideFileWarningCode.TRUNCATED,
  RideFileWarningCode.BAD_CRC,
  RideFileWarningCode.MALFORMED_XML,
  RideFileWarningCode.TRAILING_DATA,
]);

const FORMATS: readonly RideFileFormat[] = ['fit', 'gpx', 'tcx', 'kml'];

const fixtures = FORMATS.flatMap((format) =>
  readdirSync(fixturePath(format))
    .filter((name) => name.endsWith(`.${format}`))
    .sort()
    .map((name) => ({ format, name, key: `${format}/${name}`, bytes: readFixture(format, name) })),
);
const wholeFixtures = fixtures.filter((fixture) => !(fixture.key in DAMAGED_FIXTURES));

describe('checkRideFileComplete: hand-written fixtures', () => {
  it('finds the fixtures', () => {
    expect(wholeFixtures.length).toBeGreaterThan(30);
  });

  for (const fixture of fixtures) {
    const damaged = DAMAGED_FIXTURES[fixture.key];
    if (damaged === undefined) {
      it(`${fixture.key} is complete, and so is its gzip`, () => {
        expectComplete(fixture.bytes, fixture.format);
        expectComplete(gzipSync(fixture.bytes), fixture.format);
      });
    } else {
      it(`${fixture.key} is incomplete (${damaged.source})`, () => {
        expect(reasonOf(fixture.bytes)).toMatch(damaged);
        expect(reasonOf(gzipSync(fixture.bytes))).toMatch(/^the gzip's content is incomplete: /);
      });
    }
  }
});

describe('checkRideFileComplete: anything else', () => {
  it('calls an empty file, unknown bytes and bare beginnings incomplete', () => {
    expect(reasonOf(new Uint8Array(0))).toMatch(/empty/);
    expect(reasonOf(encode('Lorem ipsum dolor sit amet\n'))).toMatch(/not a FIT, TCX, GPX, KML or KMZ/);
    expect(reasonOf(new Uint8Array([14, 0x20, 0x54]))).toMatch(/not yet a whole FIT file header/);
    expect(reasonOf(encode('<?xml version="1.0"?>\n'))).toMatch(/no GPX, TCX or KML root/);
    expect(reasonOf(encode('<html><body></body></html>'))).toMatch(/no GPX, TCX or KML root/);
    expect(reasonOf(gzipSync(new Uint8Array(0)))).toMatch(/empty once decompressed/);
    expect(reasonOf(gzipSync(gzipSync(readFixture('gpx', 'sample-ride.gpx'))))).toMatch(/another gzip/);
  });

  it('never throws, whatever the bytes', () => {
    const prefixes = [
      new Uint8Array(0),
      fitFile(new Uint8Array(0)).subarray(0, 14),
      new Uint8Array([0x1f, 0x8b, 0x08]),
      encode('\uFEFF  <?xml version="1.0"?><gpx><trk>'),
      encode('<TrainingCenterDatabase><!DOCTYPE x [<!ENTITY a "b">]>'),
    ];
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 2048 }), (prefix, body) => {
        const result = checkRideFileComplete(concatBytes(prefix, body));
        expect(typeof result.complete).toBe('boolean');
      }),
      { numRuns: 500 },
    );
    expect(checkRideFileComplete('not bytes' as unknown as Uint8Array).complete).toBe(false);
  });
});

describe('checkRideFileComplete: FIT', () => {
  const data = encode('definition and data messages stand-in; only the size and CRC matter here');

  it('calls a whole file complete, with a 14-byte header CRC of 0, right or wrong', () => {
    expectComplete(fitFile(data), 'fit');
    expectComplete(fitFile(data, data.length, fitCrc(fitFile(data), 0, 12)), 'fit');
    // The file CRC covers the header too, so a wrong header CRC does not make a whole file partial.
    expectComplete(fitFile(data, data.length, 0xbeef), 'fit');
  });

  it('calls a file of only the header "no data yet"', () => {
    expect(reasonOf(fitFile(new Uint8Array(0)).subarray(0, 14))).toMatch(/header but no data yet/);
    expect(reasonOf(fitFile(new Uint8Array(0)))).toMatch(/header but no data yet/);
  });

  it('calls a file cut in its header, its data or its CRC incomplete', () => {
    const whole = fitFile(data);
    expect(reasonOf(whole.subarray(0, 13))).toMatch(/ends inside its header/);
    expect(reasonOf(whole.subarray(0, 30))).toMatch(/declares \d+ bytes of data but holds only 16/);
    expect(reasonOf(whole.subarray(0, whole.length - 1))).toMatch(/lacks 1 of the 2 bytes of its file CRC/);
    expect(reasonOf(whole.subarray(0, whole.length - 2))).toMatch(/lacks 2 of the 2 bytes/);
  });

  it('calls a file with one flipped data byte (or CRC byte) incomplete', () => {
    for (const offset of [14, 20, 14 + data.length - 1, 14 + data.length + 1]) {
      const flipped = fitFile(data);
      flipped[offset]! ^= 0x01;
      expect(reasonOf(flipped)).toMatch(/file CRC of the FIT file does not match/);
    }
  });

  it('accepts a data size of 0 (never filled in) only when the file ends in its CRC', () => {
    const unsized = fitFile(data, 0);
    expectComplete(unsized, 'fit');
    expect(reasonOf(unsized.subarray(0, unsized.length - 5))).toMatch(/declares no data size/);
  });

  it('checks every chained file, and allows zero padding after the last', () => {
    const chained = concatBytes(fitFile(data), fitFile(encode('second file')));
    expectComplete(chained, 'fit');
    expectComplete(concatBytes(chained, new Uint8Array(100)), 'fit');
    expect(reasonOf(chained.subarray(0, chained.length - 1))).toMatch(
      /chained FIT file at byte \d+ lacks 1 of the 2 bytes/,
    );
    // The next chained file being appended: part of its header, or header and some data.
    const next = fitFile(encode('third'));
    expect(reasonOf(concatBytes(chained, next.subarray(0, 6)))).toMatch(/ends inside its header/);
    expect(reasonOf(concatBytes(chained, next.subarray(0, 16)))).toMatch(/chained FIT file at byte/);
    // Anything else after the last file (decoder.ts reads past it with a TRAILING_DATA warning).
    expect(reasonOf(concatBytes(chained, encode('garbage after the files')))).toMatch(
      /neither a whole chained FIT file nor zero padding/,
    );
    expect(reasonOf(concatBytes(chained, new Uint8Array([0, 0, 7])))).toMatch(/nor zero padding/);
  });
});

describe('checkRideFileComplete: XML', () => {
  const gpx =
    '<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><ele>3</ele></trkpt></trkseg></trk></gpx>';

  it('accepts a byte-order mark, leading whitespace, and comments, PIs and whitespace after the root', () => {
    expectComplete(encode(gpx), 'gpx');
    expectComplete(encode(`\uFEFF \n\t<?xml version="1.0" encoding="UTF-8"?>\n${gpx}`), 'gpx');
    expectComplete(encode(`${gpx}\n<!-- written by a device -->\n<?pi data?>\n\n`), 'gpx');
    expectComplete(encode('<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>'), 'kml');
    expectComplete(encode('<ns:TrainingCenterDatabase xmlns:ns="x"></ns:TrainingCenterDatabase>'), 'tcx');
  });

  it('reads UTF-16 with a byte-order mark', () => {
    const text = `<?xml version="1.0" encoding="UTF-16"?>${gpx}`;
    const utf16 = new Uint8Array(2 + text.length * 2);
    utf16[0] = 0xff;
    utf16[1] = 0xfe;
    for (let i = 0; i < text.length; i++) utf16[2 + i * 2] = text.charCodeAt(i);
    expectComplete(utf16, 'gpx');
    expect(reasonOf(utf16.subarray(0, utf16.length - 2))).toMatch(/before its root element <\/gpx>/);
  });

  it('names what is missing when the document is cut', () => {
    expect(reasonOf(encode(gpx.slice(0, -1)))).toMatch(/before its root element <\/gpx> is closed/);
    expect(reasonOf(encode(gpx.slice(0, gpx.indexOf('</ele>') + 3)))).toMatch(
      /ends, inside <ele>, before its root element <\/gpx> is closed \(1:\d+: unclosed tag: ele\)/,
    );
    expect(reasonOf(encode(gpx.slice(0, gpx.indexOf('<ele>') + 4)))).toMatch(/inside <trkpt>/);
    expect(reasonOf(encode(gpx.slice(0, gpx.indexOf('>3<') + 2)))).toMatch(/inside <ele>/);
    expect(reasonOf(encode(gpx.slice(0, 12)))).toMatch(/ends before its root element/);
  });

  it('calls anything but whitespace, comments and PIs after the root incomplete', () => {
    expect(reasonOf(encode(`${gpx} trailing text`))).toMatch(/not well formed .*outside of root/);
    expect(reasonOf(encode(`${gpx}<gpx></gpx>`))).toMatch(/not well formed .*only one root/);
  });

  it('calls a malformed but whole document incomplete, with the parser message', () => {
    expect(reasonOf(encode('<gpx><trk></trkseg></trk></gpx>'))).toMatch(/GPX is not well formed \(1:\d+: /);
    expect(reasonOf(encode('<gpx a="1" a="2"></gpx>'))).toMatch(/not well formed/);
  });

  it('never expands DOCTYPE entity declarations', () => {
    // A billion laughs, one level deeper than the fixtures: expanding it would never finish.
    const levels = Array.from({ length: 12 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join(
      '',
    );
    const bomb = encode(`<!DOCTYPE gpx [<!ENTITY l0 "lol">${levels}]><gpx><name>&l12;</name></gpx>`);
    expect(reasonOf(bomb)).toMatch(/undefined entity/);
    expectComplete(encode('<!DOCTYPE gpx [<!ENTITY a "b">]><gpx><name>&amp;</name></gpx>'), 'gpx');
  });
});

describe('checkRideFileComplete: gzip', () => {
  const ride = readFixture('gpx', 'sample-ride.gpx');
  const fit = readFixture('fit', 'chained.fit');

  it('calls the gzip of a complete file complete', () => {
    expectComplete(gzipSync(ride), 'gpx');
    expectComplete(gzipSync(fit), 'fit');
  });

  it('calls a gzip cut anywhere incomplete', () => {
    const zipped = gzipSync(fit);
    for (const cut of [3, 9, 10, 12, 40, zipped.length >> 1, zipped.length - 8, zipped.length - 4]) {
      expect(reasonOf(zipped.subarray(0, cut)), `cut at ${cut}`).toMatch(/gzip/);
    }
    expect(reasonOf(zipped.subarray(0, zipped.length - 1))).toMatch(/gzip trailer does not match/);
  });

  it('checks the trailer CRC and size of every member', () => {
    const half = ride.length >> 1;
    const twoMembers = concatBytes(gzipSync(ride.subarray(0, half)), gzipSync(ride.subarray(half)));
    expectComplete(twoMembers, 'gpx');
    for (const offset of [-8, -5, -4, -1]) {
      const damaged = gzipSync(ride);
      damaged[damaged.length + offset]! ^= 0x01;
      expect(reasonOf(damaged)).toMatch(/gzip trailer does not match/);
    }
    const firstDamaged = concatBytes(gzipSync(ride.subarray(0, half)), gzipSync(ride.subarray(half)));
    firstDamaged[gzipSync(ride.subarray(0, half)).length - 6]! ^= 0x01;
    expect(reasonOf(firstDamaged)).toMatch(/gzip trailer does not match/);
  });

  it('calls a whole gzip of a partial file incomplete', () => {
    expect(reasonOf(gzipSync(ride.subarray(0, rootCloseOffset(ride))))).toMatch(
      /^the gzip's content is incomplete: the GPX ends before its root element <\/gpx> is closed/,
    );
    expect(reasonOf(gzipSync(fit.subarray(0, 100)))).toMatch(/gzip's content is incomplete: .*FIT/);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('checkRideFileComplete: any strict prefix of a complete file is incomplete', () => {
  const sources = [
    ...wholeFixtures,
    ...corpusFiles()
      .filter((file) => !DAMAGED_CORPUS.has(file.name))
      .filter((_, i) => i % 4 === 0)
      .map((file) => ({ format: file.format, key: file.name, bytes: readCorpus(file.name) })),
  ];

  it('for FIT (cuts between whole chained files excepted) and for XML (cuts before the root closes)', () => {
    const source = fc.constantFrom(...sources).chain((file) => {
      const limit = file.format === 'fit' ? file.bytes.length - 1 : rootCloseOffset(file.bytes);
      return fc.record({ file: fc.constant(file), cut: fc.nat({ max: limit }) });
    });
    fc.assert(
      fc.property(source, ({ file, cut }) => {
        fc.pre(file.format !== 'fit' || !fitFileEnds(file.bytes).has(cut));
        const result = checkRideFileComplete(file.bytes.subarray(0, cut));
        expect(result.complete, `${file.key} cut at ${cut}`).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

describe.skipIf(!corpusAvailable)(`corpus (${corpusAvailable ? 'all files' : CORPUS_SKIP_REASON})`, () => {
  for (const file of corpusFiles()) {
    describe(file.name, () => {
      const bytes = readCorpus(file.name);

      if (DAMAGED_CORPUS.has(file.name)) {
        it('is incomplete (truncated or bad CRC), as parseRideFile warns', () => {
          expect(reasonOf(bytes)).toMatch(/CRC|declares \d+ bytes of data/);
          const warnings = parseRideFile(bytes).warnings.map((warning) => warning.code);
          expect(warnings.some((code) => DAMAGE_WARNINGS.has(code))).toBe(true);
        });
        return;
      }

      it('is complete, and so is its gzip', () => {
        expectComplete(bytes, file.format);
        expectComplete(gzipSync(bytes), file.format);
      });

      it('agrees with parseRideFile: no truncation, CRC or XML warning', () => {
        let codes: string[] = [];
        try {
          codes = parseRideFile(bytes).warnings.map((warning) => warning.code);
        } catch {
          // a whole file without tracks (SOURCES.md: metadata or waypoints only)
        }
        expect(codes.filter((code) => DAMAGE_WARNINGS.has(code))).toEqual([]);
      });

      it('is incomplete when cut: header only, mid-data, at the end, mid-tag', () => {
        const cuts =
          file.format === 'fit'
            ? {
                'header only': bytes[0]!,
                'mid-data': bytes.length >> 1,
                'missing last CRC byte': bytes.length - 1,
              }
            : {
                'root start tag only': bytes.indexOf(0x3e, bytes.indexOf(0x3c, 1)) + 1,
                'mid-data': bytes.length >> 1,
                'mid-tag': midTagOffset(bytes),
                'last byte of the root close removed': rootCloseOffset(bytes),
              };
        for (const [what, cut] of Object.entries(cuts)) {
          expect(checkRideFileComplete(bytes.subarray(0, cut)).complete, what).toBe(false);
          expect(checkRideFileComplete(gzipSync(bytes.subarray(0, cut))).complete, what).toBe(false);
          const zipped = gzipSync(bytes);
          const zippedCut = Math.floor((cut / bytes.length) * (zipped.length - 1));
          expect(checkRideFileComplete(zipped.subarray(0, zippedCut)).complete, what).toBe(false);
        }
      });

      if (file.format === 'fit') {
        it('is incomplete with one flipped data byte', () => {
          const flipped = bytes.slice();
          flipped[bytes[0]! + ((bytes.length - bytes[0]!) >> 1)]! ^= 0x40;
          expect(reasonOf(flipped)).toMatch(/file CRC .* does not match/);
        });
      }
    });
  }
});
