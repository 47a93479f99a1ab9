/**
 * Zone names as people write them (issue 40: US zones were shown as "GMT-6"): each zone by the
 * abbreviation of the country that uses it, else by its offset; every zone the runtime knows, in
 * winter and in summer, gets one or the other, never a long name.
 */
import { describe, expect, it } from 'vitest';
import { zoneAbbreviation } from './format.js';

const JANUARY = Date.UTC(2025, 0, 15, 12);
const JULY = Date.UTC(2025, 6, 15, 12);

describe('zoneAbbreviation', () => {
  it.each([
    ['America/Chicago', 'CST', 'CDT'],
    ['America/New_York', 'EST', 'EDT'],
    ['America/Denver', 'MST', 'MDT'],
    ['America/Phoenix', 'MST', 'MST'],
    ['America/Los_Angeles', 'PST', 'PDT'],
    ['America/Anchorage', 'AKST', 'AKDT'],
    ['Pacific/Honolulu', 'HST', 'HST'],
    ['Europe/Zurich', 'CET', 'CEST'],
    ['Europe/London', 'GMT', 'BST'],
    ['Europe/Lisbon', 'WET', 'WEST'],
    ['Australia/Sydney', 'AEDT', 'AEST'],
    ['Pacific/Auckland', 'NZDT', 'NZST'],
    ['Asia/Kolkata', 'IST', 'IST'],
    ['Asia/Tokyo', 'GMT+9', 'GMT+9'],
    ['America/Sao_Paulo', 'GMT-3', 'GMT-3'],
    ['UTC', 'UTC', 'UTC'],
  ])('names %s %s in winter and %s in summer', (zone, winter, summer) => {
    expect(zoneAbbreviation(JANUARY, zone)).toBe(winter);
    expect(zoneAbbreviation(JULY, zone)).toBe(summer);
  });

  it('gives every zone an abbreviation or an offset, in winter and in summer', () => {
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      for (const at of [JANUARY, JULY]) {
        expect(zoneAbbreviation(at, zone), zone).toMatch(/^[A-Z]{2,5}$|^GMT(?:[+-−]\d{1,2}(?::\d{2})?)?$/);
      }
    }
  });

  it('says UTC for a zone the runtime does not know', () => {
    expect(zoneAbbreviation(JULY, 'Mars/Olympus_Mons')).toBe('UTC');
  });
});
