import type { Track } from '@rideport/ridefile';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_SKIP_REASON,
  corpusAvailable,
  readCorpus,
  readFixture,
} from '../../../../test/support/corpus.js';
import { onlyTrack, tracksOf } from '../test-support/assets.js';
import { activityType, assetColumns, timeZoneAt, tripColumns } from './track-columns.js';

/** A track's sport fields with the summary of a real ride (only the device matters to activityType). */
function sportOf(sport: string | null, subSport: string | null, device: string | null = null) {
  const track = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
  return { sport, subSport, summary: { ...track.summary, device } } satisfies Pick<
    Track,
    'sport' | 'subSport' | 'summary'
  >;
}

describe('activityType (docs/contributors/decisions.md §2: cycling:road, cycling:virtual, running:generic, …)', () => {
  it.each([
    ['cycling', 'road', null, 'cycling:road'],
    ['cycling', 'virtual_activity', null, 'cycling:virtual'],
    ['cycling', 'indoor_cycling', null, 'cycling:indoor'],
    ['cycling', 'gravel_cycling', null, 'cycling:gravel'],
    ['cycling', 'mountain', null, 'cycling:mountain'],
    ['cycling', null, null, 'cycling:generic'],
    ['cycling', 'generic', 'Zwift', 'cycling:virtual'],
    ['cycling', null, 'TrainingPeaks Virtual', 'cycling:virtual'],
    ['e_biking', null, null, 'cycling:e_bike'],
    ['running', 'generic', null, 'running:generic'],
    ['running', 'trail', null, 'running:trail'],
    ['running', 'indoor_running', null, 'running:treadmill'],
    ['walking', null, null, 'walking:generic'],
    ['multisport', null, null, 'multisport:generic'],
    [null, null, null, null],
  ])('%s / %s (device %s) → %s', (sport, subSport, device, expected) => {
    expect(activityType(sportOf(sport, subSport, device))).toBe(expected);
  });
});

describe('timeZoneAt', () => {
  it('names the IANA zone at a position, and null for an impossible one', () => {
    expect(timeZoneAt(47.37, 8.54)).toBe('Europe/Zurich');
    expect(timeZoneAt(40.78, -73.96)).toBe('America/New_York');
    expect(timeZoneAt(91, 0)).toBeNull();
  });
});

describe('columns from our own fixtures', () => {
  it('a GPX ride: positions, times, the zone where it began; no sport in the file → activity_type null', () => {
    const track = onlyTrack(readFixture('gpx', 'sample-ride.gpx'), 'sample-ride.gpx');
    const { summary } = track;
    expect(assetColumns(track)).toEqual({
      distance: summary.distanceMeters,
      elevation_gain: summary.elevationGainMeters,
      elevation_loss: summary.elevationLossMeters,
      first_lat: summary.firstPosition!.lat,
      first_lng: summary.firstPosition!.lng,
      last_lat: summary.lastPosition!.lat,
      last_lng: summary.lastPosition!.lng,
      sw_lat: summary.bounds!.swLat,
      sw_lng: summary.bounds!.swLng,
      ne_lat: summary.bounds!.neLat,
      ne_lng: summary.bounds!.neLng,
      track_type: summary.trackType,
      terrain: summary.terrain,
      point_count: 30,
    });
    const trip = tripColumns(track);
    expect(trip.time_zone).toBe('Europe/Zurich');
    expect(trip.departed_at).toBe(track.startTime! * 1000);
    expect(trip.is_stationary).toBe(0);
    expect(trip.avg_hr).toBe(summary.heartRateBpm!.avg);
    expect(trip.max_speed).toBeCloseTo(summary.speedMetersPerSecond!.max * 3.6, 10);
  });

  it('a track without positions is stationary and has no time zone', () => {
    const [indoor] = tracksOf(readFixture('fit', 'smart-trainer.fit'), 'smart-trainer.fit');
    const trip = tripColumns(indoor!);
    expect(indoor!.summary.firstPosition).toBeNull();
    expect(trip).toMatchObject({ is_stationary: 1, time_zone: null });
  });
});

describe.skipIf(!corpusAvailable)(
  `columns from the corpus (${corpusAvailable ? 'real files' : CORPUS_SKIP_REASON})`,
  () => {
    it('a Zwift ride is virtual and stationary, though its simulated positions give a time zone', () => {
      const track = onlyTrack(readCorpus('FITfileR__zwift-turbo.fit'), 'zwift-turbo.fit');
      expect(tripColumns(track)).toMatchObject({
        activity_type: 'cycling:virtual',
        is_stationary: 1,
        time_zone: 'America/New_York',
        device: 'Zwift',
      });
    });

    it('an indoor trainer ride without GPS is stationary, with no position, bounds or time zone', () => {
      const track = onlyTrack(readCorpus('FITfileR__garmin-fenix6-turbo.fit'), 'fenix6-turbo.fit');
      expect(tripColumns(track)).toMatchObject({
        activity_type: 'cycling:indoor',
        is_stationary: 1,
        time_zone: null,
      });
      expect(assetColumns(track)).toMatchObject({
        first_lat: null,
        first_lng: null,
        sw_lat: null,
        ne_lng: null,
      });
    });

    it('a TCX start time with milliseconds becomes whole milliseconds', () => {
      const [track] = tracksOf(
        readCorpus('goldencheetah__2020-02-05_17-25-14_Training-with-Notes.tcx'),
        'training.tcx',
      );
      expect(track!.startTime! % 1).not.toBe(0);
      expect(tripColumns(track!).departed_at).toBe(Math.round(track!.startTime! * 1000));
    });
  },
);
