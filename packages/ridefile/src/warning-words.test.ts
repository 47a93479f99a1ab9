import { RideFileWarningCode } from './errors.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { saidWarnings, warningWords, type WarnedTrack } from './warning-words.js';

const ride = (overrides: Partial<WarnedTrack> = {}): WarnedTrack => ({
  kind: 'ride',
  departedAtMs: Date.parse('2024-05-04T12:00:00Z'),
  lastPointAtMs: Date.parse('2024-05-04T12:32:40Z'),
  timeZone: 'Europe/Zurich',
  ...overrides,
});

const truncated = {
  code: RideFileWarningCode.TRUNCATED,
  message: 'the FIT file at byte 0 declares 1930 bytes of data but the input ends after 849',
};

/** Every code the words know: the library's. */
const KNOWN_CODES: readonly string[] = Object.values(RideFileWarningCode);

/** An internal code at the start of a text: `RIDEFILE_TRUNCATED: …`, `UPLOAD_LOST …`. */
const CODE_AT_START = /^\W*[A-Z][A-Z0-9]*_[A-Z0-9_]*/;

const tracks = fc.record({
  kind: fc.constantFrom('ride' as const, 'route' as const),
  departedAtMs: fc.option(fc.integer({ min: 0, max: 4_000_000_000_000 }), { nil: null }),
  lastPointAtMs: fc.option(fc.integer({ min: 0, max: 4_000_000_000_000 }), { nil: null }),
  timeZone: fc.constantFrom(null, 'UTC', 'Europe/Zurich', 'America/Los_Angeles', 'Asia/Kathmandu'),
});

describe('warningWords', () => {
  it('says where a cut-off ride stops, in its local time', () => {
    expect(warningWords(truncated, ride()).sentence).toBe(
      'This file ends early: the ride was read up to 14:32.',
    );
  });

  it('names UTC when the ride has no time zone of its own', () => {
    expect(warningWords(truncated, ride({ timeZone: null })).sentence).toBe(
      'This file ends early: the ride was read up to 12:32 UTC.',
    );
  });

  it("says the zone's name after the time when the caller gives one (issue 40)", () => {
    const named = ride({ zoneName: (milliseconds) => (milliseconds > 0 ? 'CEST' : '?') });
    expect(warningWords(truncated, named).sentence).toBe(
      'This file ends early: the ride was read up to 14:32 CEST.',
    );
    // UTC is named as before, whatever the caller gives.
    expect(warningWords(truncated, { ...named, timeZone: null }).sentence).toBe(
      'This file ends early: the ride was read up to 12:32 UTC.',
    );
  });

  it('adds the date when the ride ended on another day than it began', () => {
    const overnight = ride({
      departedAtMs: Date.parse('2024-05-04T21:00:00Z'),
      lastPointAtMs: Date.parse('2024-05-04T22:14:00Z'),
    });
    expect(warningWords(truncated, overnight).sentence).toBe(
      'This file ends early: the ride was read up to 2024-05-05 00:14.',
    );
  });

  it('says what is left when no point has a time, and of a route, "the route"', () => {
    expect(warningWords(truncated, ride({ lastPointAtMs: null })).sentence).toBe(
      'This file ends early: the ride shows what was read before the cut.',
    );
    const route = ride({ kind: 'route', departedAtMs: null, lastPointAtMs: null, timeZone: null });
    expect(warningWords(truncated, route).sentence).toBe(
      'This file ends early: the route shows what was read before the cut.',
    );
  });

  it('has words of its own for every code', () => {
    const said = (code: string): string =>
      warningWords({ code, message: 'the library message' }, ride()).sentence;
    expect(said(RideFileWarningCode.BAD_CRC)).toBe(
      'This file is damaged (its checksum does not match its content): the ride shows what could be read.',
    );
    expect(said(RideFileWarningCode.SKIPPED_DATA)).toBe(
      'Parts of this file could not be read and were skipped: the ride shows the rest.',
    );
    expect(said('RIDEFILE_CLOCK_JUMP')).toBe(
      "The device's clock jumped while it recorded: the jump is left out of the elapsed, timer and moving times.",
    );
    expect(said(RideFileWarningCode.RELATIVE_TIME)).toMatch(/^Some points of this file have no time: /);
    expect(said(RideFileWarningCode.MALFORMED_XML)).toBe(
      'This file has broken XML: the ride shows what could be read.',
    );
    // A shortened text is told with the library's own clause, which names the field and its length.
    for (const code of KNOWN_CODES.filter((known) => known !== RideFileWarningCode.TEXT_SHORTENED)) {
      expect(said(code), code).not.toContain('library message');
    }
  });

  it('says which text was too long and how long it was (issue 17)', () => {
    const words = warningWords(
      {
        code: RideFileWarningCode.TEXT_SHORTENED,
        message: 'the track name had 209,715,200 characters; only its first 255 were kept',
      },
      ride(),
    );
    expect(words).toEqual({
      sentence:
        'A text in this file is too long: the track name had 209,715,200 characters; only its first 255 were kept.',
      file: 'a file with a text too long',
      consequence: 'the track name had 209,715,200 characters; only its first 255 were kept',
    });
  });

  it("says a code it does not know with the library's message, never with the code", () => {
    const words = warningWords(
      {
        code: 'RIDEFILE_SOMETHING_NEW',
        message: 'the device wrote laps twice; the second ones are left out.',
      },
      ride(),
    );
    expect(words).toEqual({
      sentence: 'The device wrote laps twice; the second ones are left out.',
      file: 'a file with a problem',
      consequence: 'the device wrote laps twice; the second ones are left out',
    });
  });

  it('says neither a message that reads like a code nor a code named like Object.prototype (found by the property below in CI)', () => {
    const words = warningWords({ code: RideFileWarningCode.TEXT_SHORTENED, message: 'A_' }, ride());
    expect(words.consequence).toBe('only its start was kept');
    expect(warningWords({ code: '__proto__', message: 'a sentence.' }, ride()).sentence).toBe('A sentence.');
  });

  it('property: a sentence for people, never an internal code, for every code, message and ride', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KNOWN_CODES), fc.string(), tracks, (code, message, track) => {
        const words = warningWords({ code, message }, track);
        for (const text of [words.sentence, words.file, words.consequence]) {
          expect(text).not.toMatch(CODE_AT_START);
          expect(text).not.toContain(code);
        }
        expect(words.sentence).toMatch(/^[A-Z].*\.$/s);
        if (
          track.timeZone === null &&
          code === RideFileWarningCode.TRUNCATED &&
          track.lastPointAtMs !== null
        ) {
          expect(words.sentence).toMatch(/ UTC\.$/);
        }
      }),
    );
  });

  it('property: an unknown code is said with the message, never led by the code', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/),
        fc.string(),
        tracks,
        (code, message, track) => {
          // (A library message that itself began with its code would be shown as it is.)
          fc.pre(!KNOWN_CODES.includes(code) && !message.trim().toUpperCase().startsWith(code));
          const { sentence } = warningWords({ code, message }, track);
          expect(sentence.startsWith(code)).toBe(false);
          expect(sentence).toMatch(/\.$/);
        },
      ),
    );
  });
});

describe('saidWarnings', () => {
  it('keeps the code for programs beside the words for people, in order; none for a sound file', () => {
    const skipped = { code: RideFileWarningCode.SKIPPED_DATA, message: '12 bytes were skipped' };
    expect(saidWarnings([truncated, skipped], ride())).toEqual([
      { code: 'RIDEFILE_TRUNCATED', message: 'This file ends early: the ride was read up to 14:32.' },
      {
        code: 'RIDEFILE_SKIPPED_DATA',
        message: 'Parts of this file could not be read and were skipped: the ride shows the rest.',
      },
    ]);
    expect(saidWarnings([], ride())).toEqual([]);
  });
});
