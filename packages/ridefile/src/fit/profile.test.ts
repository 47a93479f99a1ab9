import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROFILE_PATH, renderFitProfile } from '../../scripts/generate-fit-profile.js';
import { field, messageNum, snakeCase, typeValue, typeValueName } from './profile.js';

describe('the FIT profile', () => {
  it('is what the generator makes from the installed official profile (run `npm run generate:fit-profile`)', () => {
    expect(readFileSync(PROFILE_PATH, 'utf8')).toBe(renderFitProfile());
  });

  it('names what the reader uses', () => {
    expect(messageNum('record')).toBe(20);
    expect(field('record', 'positionLat')).toMatchObject({ num: 0, units: 'semicircles' });
    expect(field('record', 'enhancedSpeed')).toMatchObject({ num: 73, scale: 1000 });
    expect(field('record', 'compressedSpeedDistance').components.map((c) => c.bits)).toEqual([12, 12]);
    expect(typeValue('antplusDeviceType', 'bikeSpeed')).toBe(123);
    expect(typeValueName('sport', 2)).toBe('cycling');
    expect(typeValueName('sport', 9999)).toBeNull();
    expect(() => field('record', 'noSuchField')).toThrow();
  });

  it('spells names in snake_case for the public model', () => {
    expect(snakeCase('virtualActivity')).toBe('virtual_activity');
    expect(snakeCase('eBiking')).toBe('e_biking');
    expect(snakeCase('cycling')).toBe('cycling');
  });
});
