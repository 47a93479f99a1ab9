import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROFILE_PATH, renderFitProfile } from '../../scripts/generate-fit-profile.js';
import { FIT_MESSAGES } from './profile.generated.js';
import { COMPONENT_DEFAULTS, FIELD_DEFAULTS, SUB_FIELD_DEFAULTS } from './profile-defaults.js';
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

  it('gives every field, sub-field and component whole, the defaults the generator leaves out filled in', () => {
    const keys = (value: object): string[] => Object.keys(value).sort();
    for (const message of Object.values(FIT_MESSAGES)) {
      for (const f of Object.values(message.fields)) {
        expect(keys(f)).toEqual(
          keys({
            ...FIELD_DEFAULTS,
            num: 0,
            name: '',
            type: '',
            baseType: '',
            components: [],
            subFields: [],
          }),
        );
        for (const sub of f.subFields) {
          expect(keys(sub)).toEqual(
            keys({ ...SUB_FIELD_DEFAULTS, name: '', type: '', baseType: '', components: [], when: [] }),
          );
        }
        for (const component of [...f.components, ...f.subFields.flatMap((sub) => sub.components)]) {
          expect(keys(component)).toEqual(keys({ ...COMPONENT_DEFAULTS, fieldNum: 0, bits: 0 }));
        }
      }
    }
    expect(field('record', 'heartRate')).toEqual({
      num: 3,
      name: 'heartRate',
      type: 'uint8',
      baseType: 'uint8',
      array: false,
      scale: 1,
      offset: 0,
      units: 'bpm',
      accumulated: false,
      components: [],
      subFields: [],
    });
    expect(field('record', 'compressedSpeedDistance').components).toEqual([
      { fieldNum: 6, bits: 12, scale: 100, offset: 0, accumulate: false },
      { fieldNum: 5, bits: 12, scale: 16, offset: 0, accumulate: true },
    ]);
  });

  it('spells names in snake_case for the public model', () => {
    expect(snakeCase('virtualActivity')).toBe('virtual_activity');
    expect(snakeCase('eBiking')).toBe('e_biking');
    expect(snakeCase('cycling')).toBe('cycling');
  });
});
