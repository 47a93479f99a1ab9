import { describe, expect, it } from 'vitest';
import { normalizeSport } from './sport.js';

describe('normalizeSport', () => {
  it('maps TCX Sport attributes', () => {
    expect(normalizeSport('Biking')).toBe('cycling');
    expect(normalizeSport('Running')).toBe('running');
    expect(normalizeSport('Other')).toBe('generic');
  });

  it('maps GPX <type> words in any case and spelling, and Strava type numbers', () => {
    expect(normalizeSport(' cycling ')).toBe('cycling');
    expect(normalizeSport('Ride')).toBe('cycling');
    expect(normalizeSport('mountain biking')).toBe('cycling');
    expect(normalizeSport('MountainBikeRide')).toBe('cycling');
    expect(normalizeSport('E-Bike Ride')).toBe('e_biking');
    expect(normalizeSport('trail-running')).toBe('running');
    expect(normalizeSport('1')).toBe('cycling');
    expect(normalizeSport('9')).toBe('running');
    expect(normalizeSport('10')).toBe('walking');
    expect(normalizeSport('4')).toBe('hiking');
  });

  it('answers null for unknown or empty names', () => {
    expect(normalizeSport('the category')).toBeNull();
    expect(normalizeSport('')).toBeNull();
    expect(normalizeSport('77')).toBeNull();
  });
});
