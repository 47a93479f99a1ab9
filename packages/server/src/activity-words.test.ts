import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activityInWords, isPlaceholderName, madeUpRideName, partOfDay } from './activity-words.js';

/** 2024-05-06 at `hour`:30 UTC, in Unix seconds. */
const at = (hour: number): number => Date.parse(`2024-05-06T${String(hour).padStart(2, '0')}:30:00Z`) / 1000;

describe('activityInWords', () => {
  it('says sports and kinds in words', () => {
    expect(
      [
        'cycling:road',
        'cycling:generic',
        'cycling:indoor',
        'cycling:virtual',
        'cycling:mountain',
        'cycling:gravel',
      ].map(activityInWords),
    ).toEqual([
      'Road cycling',
      'Cycling',
      'Indoor cycling',
      'Virtual cycling',
      'Mountain biking',
      'Gravel cycling',
    ]);
    expect(
      [
        'running:trail',
        'running:treadmill',
        'swimming:lap_swimming',
        'cycling:e_bike',
        'generic:generic',
      ].map(activityInWords),
    ).toEqual(['Trail running', 'Treadmill running', 'Pool swimming', 'E-bike riding', 'Activity']);
    expect(activityInWords('kayaking:sea_kayaking')).toBe('Sea kayaking');
    expect(activityInWords('kayaking:sea')).toBe('Sea kayaking');
    expect(activityInWords(null)).toBeNull();
  });

  it("never finds Object.prototype's names in its tables (found by the property below in CI)", () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(activityInWords(key)).toBe(
        key === '__proto__' ? 'Proto' : key.charAt(0).toUpperCase() + key.slice(1),
      );
      expect(activityInWords(`cycling:${key}`)).toMatch(/ cycling$/);
      expect(madeUpRideName({ activityType: key, startTime: null, timeZone: null }, 'UTC')).toBe('Activity');
      expect(madeUpRideName({ activityType: `${key}:virtual`, startTime: null, timeZone: null }, 'UTC')).toBe(
        'Virtual Activity',
      );
    }
  });

  it('never shows the colon or an underscore of the stored value', () => {
    const word = fc.stringMatching(/^[a-z]+(_[a-z]+){0,2}$/);
    fc.assert(
      fc.property(word, word, (sport, kind) => {
        const words = activityInWords(`${sport}:${kind}`)!;
        expect(words).not.toMatch(/[:_]|^ | $| {2}/);
        expect(words.charAt(0)).toBe(words.charAt(0).toUpperCase());
      }),
    );
  });
});

describe('madeUpRideName', () => {
  it('names a ride by the part of the day where it began and its sport, as Strava does', () => {
    const name = (activityType: string | null, startTime: number | null, timeZone: string | null) =>
      madeUpRideName({ activityType, startTime, timeZone }, 'UTC');
    expect(name('cycling:road', at(6), 'UTC')).toBe('Morning Ride');
    expect(name('cycling:road', at(6), 'America/New_York')).toBe('Night Ride');
    expect(name('running:generic', at(17), 'Europe/Zurich')).toBe('Evening Run');
    expect(name('walking:generic', at(11), 'UTC')).toBe('Lunch Walk');
    expect(name('hiking:generic', at(14), 'UTC')).toBe('Afternoon Hike');
    expect(name('swimming:lap_swimming', at(22), 'UTC')).toBe('Night Swim');
    expect(name('cycling:e_bike', at(8), 'UTC')).toBe('Morning E-Bike Ride');
    expect(name(null, at(8), 'UTC')).toBe('Morning Activity');
    expect(name('cycling:road', null, 'UTC')).toBe('Ride');
    // A virtual world's positions say nothing about the rider's day.
    expect(name('cycling:virtual', at(19), 'Pacific/Guadalcanal')).toBe('Virtual Ride');
    expect(name('running:virtual', at(19), null)).toBe('Virtual Run');
    // Without positions: the fallback zone. Indoor kinds are said (issue 40), with the part of the day.
    expect(
      madeUpRideName({ activityType: 'cycling:indoor', startTime: at(18), timeZone: null }, 'Asia/Tokyo'),
    ).toBe('Night Indoor Ride');
    expect(name('running:treadmill', at(7), 'UTC')).toBe('Morning Treadmill Run');
    expect(name('rowing:indoor_rowing', at(12), 'UTC')).toBe('Lunch Indoor Row');
    expect(name('cycling:indoor', null, 'UTC')).toBe('Indoor Ride');
  });

  it('takes the names apps write for "no name" as none (issue 40)', () => {
    for (const placeholder of [
      'Untitled',
      'untitled 3',
      'Track',
      'Track 12',
      'ACTIVE LOG',
      'Unnamed_Activity',
      ' New Activity ',
    ]) {
      expect(isPlaceholderName(placeholder), placeholder).toBe(true);
    }
    for (const real of ['Untitled hills', 'Track day', 'Lake loop', 'Activity with Anna', '12']) {
      expect(isPlaceholderName(real), real).toBe(false);
    }
  });

  it('gives every hour one part of the day, in order through the day', () => {
    const parts = Array.from({ length: 24 }, (_, hour) => partOfDay(hour));
    expect(parts.join(' ')).toBe(
      [
        ...Array<string>(5).fill('Night'),
        ...Array<string>(6).fill('Morning'),
        ...Array<string>(2).fill('Lunch'),
        ...Array<string>(4).fill('Afternoon'),
        ...Array<string>(4).fill('Evening'),
        ...Array<string>(3).fill('Night'),
      ].join(' '),
    );
  });

  it('is a short name of words for any activity, time and zone', () => {
    const zones = [
      'UTC',
      'Europe/Zurich',
      'America/St_Johns',
      'Asia/Kathmandu',
      'Pacific/Chatham',
      'Australia/Lord_Howe',
    ];
    fc.assert(
      fc.property(
        fc.option(fc.stringMatching(/^[a-z_]{1,20}(:[a-z_]{1,20})?$/), { nil: null }),
        fc.option(fc.integer({ min: 0, max: 4_102_444_800 }), { nil: null }),
        fc.option(fc.constantFrom(...zones), { nil: null }),
        (activityType, startTime, timeZone) => {
          const name = madeUpRideName({ activityType, startTime, timeZone }, 'UTC');
          expect(name.length).toBeGreaterThan(0);
          expect(name.length).toBeLessThanOrEqual(40);
          expect(name).toMatch(/^((Night|Morning|Lunch|Afternoon|Evening) )?[A-Z][A-Za-z -]+$/);
        },
      ),
    );
  });
});
