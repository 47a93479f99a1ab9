/**
 * Activities in words (issue 19, "Units, time and names"): a trip's `activity_type` (`cycling:road`,
 * store/track-columns.ts) as people say it ("Road cycling"), and the name a ride gets when neither the
 * uploader nor the file gives one, made the way Strava makes them ("Morning Ride", "Evening Run",
 * "Virtual Ride"). The store names rides with it and the pages show sports with it, so both say the same.
 */

/** The sports of `Track.sport` (ridefile's xml/sport.ts and FIT's sport names) as nouns. */
const SPORT_NOUNS: Readonly<Record<string, string>> = {
  cycling: 'cycling',
  running: 'running',
  walking: 'walking',
  hiking: 'hiking',
  swimming: 'swimming',
  generic: 'activity',
  training: 'training',
  fitness_equipment: 'fitness equipment',
  rowing: 'rowing',
  cross_country_skiing: 'cross-country skiing',
  alpine_skiing: 'alpine skiing',
  inline_skating: 'inline skating',
  stand_up_paddleboarding: 'stand-up paddleboarding',
};

/** Activities whose usual name is not "<kind> <sport>" (docs/contributors/decisions.md §2's kinds, track-columns.ts). */
const ACTIVITY_PHRASES: Readonly<Record<string, string>> = {
  'cycling:mountain': 'Mountain biking',
  'cycling:e_bike': 'E-bike riding',
  'cycling:e_mountain': 'E-mountain biking',
  'cycling:hand': 'Hand cycling',
  'cycling:cyclocross': 'Cyclocross',
  'cycling:bmx': 'BMX',
  'running:treadmill': 'Treadmill running',
  'swimming:lap_swimming': 'Pool swimming',
  'swimming:open_water': 'Open-water swimming',
  'walking:indoor_walking': 'Indoor walking',
  'rowing:indoor_rowing': 'Indoor rowing',
};

/** `table[key]` when the table itself has it: a key such as `__proto__` must not find Object.prototype. */
function own(table: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The first letter upper case, the rest as it is. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `sea_kayaking` → "sea kayaking"; underscores at the ends or in a row leave no spaces behind. */
function spaced(snakeCase: string): string {
  return snakeCase
    .split('_')
    .filter((word) => word !== '')
    .join(' ');
}

/** `cycling:road` → sport `cycling`, kind `road`; a type without a kind is `generic`. */
function sportAndKind(activityType: string): { sport: string; kind: string } {
  const colon = activityType.indexOf(':');
  if (colon < 0) return { sport: activityType, kind: 'generic' };
  return { sport: activityType.slice(0, colon), kind: activityType.slice(colon + 1) || 'generic' };
}

/**
 * `cycling:road` → "Road cycling", `cycling:generic` → "Cycling", `cycling:mountain` → "Mountain
 * biking", `running:trail` → "Trail running"; null stays null (the file did not say). A sport or kind
 * this table does not know is said in its own words (`kayaking:sea` and `kayaking:sea_kayaking` →
 * "Sea kayaking").
 */
export function activityInWords(activityType: string | null): string | null {
  if (activityType === null) return null;
  const phrase = own(ACTIVITY_PHRASES, activityType);
  if (phrase !== undefined) return phrase;
  const { sport, kind } = sportAndKind(activityType);
  const noun = own(SPORT_NOUNS, sport) ?? (spaced(sport) || 'activity');
  if (kind === 'generic' || spaced(kind) === '') return capitalized(noun);
  // A kind that names the sport itself (`kayaking:sea_kayaking`) is said alone.
  const kindWords = spaced(kind);
  return kindWords.includes(noun) ? capitalized(kindWords) : `${capitalized(kindWords)} ${noun}`;
}

/** Whether the activity took place in a virtual world (`cycling:virtual`: Zwift-like), not where its positions say. */
export function isVirtualActivity(activityType: string | null): boolean {
  return activityType !== null && sportAndKind(activityType).kind === 'virtual';
}

/** What one such activity is called in a name ("Morning Ride"), by sport. */
const ACTIVITY_NOUNS: Readonly<Record<string, string>> = {
  cycling: 'Ride',
  running: 'Run',
  walking: 'Walk',
  hiking: 'Hike',
  swimming: 'Swim',
  rowing: 'Row',
  cross_country_skiing: 'Nordic Ski',
  alpine_skiing: 'Alpine Ski',
  inline_skating: 'Inline Skate',
  stand_up_paddleboarding: 'Stand Up Paddle',
};

/**
 * Kinds said before the activity's noun in a made-up name (issue 40: a trainer ride was a "Morning
 * Ride" like any other): "Evening Indoor Ride", "Morning Treadmill Run". Unlike a virtual ride's, an
 * indoor ride's time zone is the rider's own, so its part of the day stays.
 */
const KIND_WORDS: Readonly<Record<string, string>> = {
  indoor: 'Indoor ',
  treadmill: 'Treadmill ',
  indoor_walking: 'Indoor ',
  indoor_rowing: 'Indoor ',
};

/**
 * Names that apps write when the rider gave none (issue 40: a run from a GPX was "Untitled"): no name
 * at all, so the ride is named as one without a name is. Compared without case, spaces or digits at the
 * end ("Untitled 3", "Track 12").
 */
const PLACEHOLDER_NAMES = new Set([
  'untitled',
  'untitled activity',
  'untitled track',
  'untitled ride',
  'unnamed',
  'unnamed activity',
  'unnamed track',
  'no name',
  'noname',
  'new activity',
  'new track',
  'track',
  'activity',
  'active log',
]);

/** Whether `name` is one an app writes for "no name" ("Untitled", "Track 3", "ACTIVE LOG"). */
export function isPlaceholderName(name: string): boolean {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]*\d*$/, '')
    .replace(/[\s_-]+/g, ' ');
  return PLACEHOLDER_NAMES.has(key);
}

/**
 * The parts of the day by the local hour the activity began, as Strava's default names use them.
 * Strava does not publish its boundaries; these are ours: Night before 5:00 and from 21:00, Morning
 * 5:00–10:59, Lunch 11:00–12:59, Afternoon 13:00–16:59, Evening 17:00–20:59.
 */
export function partOfDay(localHour: number): string {
  if (localHour < 5) return 'Night';
  if (localHour < 11) return 'Morning';
  if (localHour < 13) return 'Lunch';
  if (localHour < 17) return 'Afternoon';
  if (localHour < 21) return 'Evening';
  return 'Night';
}

/** Hour formats by time zone: making one costs about a millisecond, using one microseconds. */
const HOUR_FORMATS = new Map<string, Intl.DateTimeFormat>();

function localHour(unixSeconds: number, timeZone: string): number {
  let format = HOUR_FORMATS.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' });
    HOUR_FORMATS.set(timeZone, format);
  }
  return Number(format.format(new Date(unixSeconds * 1000)));
}

/**
 * The name of a ride that has none: "<part of day> <activity>" by the local hour it began ("Morning
 * Ride", "Evening Run", "Lunch Walk"); "Virtual Ride" (or Run) for a virtual one, whose positions and
 * so whose time zone belong to a made-up world; "E-Bike Ride" for an e-bike; "Activity" when the file
 * does not say the sport. Without a start time there is no part of the day ("Ride").
 *
 * `timeZone` is the zone where the ride began (from its first position); a ride without positions
 * takes `fallbackTimeZone` (the rider's preference, else the machine's: store/assets.ts).
 */
export function madeUpRideName(
  ride: { activityType: string | null; startTime: number | null; timeZone: string | null },
  fallbackTimeZone: string,
): string {
  const { activityType, startTime, timeZone } = ride;
  const { sport, kind } = sportAndKind(activityType ?? 'generic');
  const noun = own(ACTIVITY_NOUNS, sport) ?? 'Activity';
  if (kind === 'virtual') return `Virtual ${noun}`;
  const activity =
    kind === 'e_bike' || kind === 'e_mountain' ? 'E-Bike Ride' : `${own(KIND_WORDS, kind) ?? ''}${noun}`;
  if (startTime === null) return activity;
  return `${partOfDay(localHour(startTime, timeZone ?? fallbackTimeZone))} ${activity}`;
}

/** The machine's own time zone: the local account's default, and names' when a rider set none (issue 19). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
