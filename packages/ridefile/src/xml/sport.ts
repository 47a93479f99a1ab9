/**
 * Sport names of the XML formats → the normalised snake_case sports of `Track.sport` (model.ts), so that a
 * GPX `<type>`, a TCX `Sport` attribute and a FIT sport land on the same values (`cycling`, `running`, …).
 * Unknown names give null rather than a guess.
 */

const SPORT_NAMES: Readonly<Record<string, readonly string[]>> = {
  cycling: [
    'cycling',
    'biking',
    'bike',
    'ride',
    'road_biking',
    'road_cycling',
    'road_bike',
    'mountain_biking',
    'mountain_bike',
    'mountain_bike_ride',
    'mtb',
    'gravel_ride',
    'gravel_cycling',
    'virtual_ride',
    'indoor_cycling',
    // Strava's GPX export writes its activity type as a number: 1 is Ride.
    '1',
  ],
  e_biking: ['e_biking', 'e_bike', 'e_bike_ride', 'ebike', 'ebike_ride', 'ebiking'],
  running: [
    'running',
    'run',
    'trail_run',
    'trail_running',
    'virtual_run',
    'treadmill_running',
    'jogging',
    '9',
  ],
  walking: ['walking', 'walk', '10'],
  hiking: ['hiking', 'hike', '4'],
  swimming: ['swimming', 'swim'],
  // TCX `Sport="Other"`.
  generic: ['other', 'generic'],
};

const SPORTS: ReadonlyMap<string, string> = new Map(
  Object.entries(SPORT_NAMES).flatMap(([sport, names]) => names.map((name) => [name, sport] as const)),
);

const MAX_SPORT_NAME_LENGTH = 64;

/** `"Biking"` → `cycling`, `"mountain biking"` → `cycling`, `"MountainBikeRide"` → `cycling`, `"9"` → `running`. */
export function normalizeSport(text: string): string | null {
  const trimmed = text.trim();
  // No sport name is longer; the patterns below need not run over a long text (issue 17).
  if (trimmed.length > MAX_SPORT_NAME_LENGTH) return null;
  const key = trimmed
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (key === '') return null;
  return SPORTS.get(key) ?? null;
}
