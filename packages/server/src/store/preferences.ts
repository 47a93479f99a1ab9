/**
 * A rider's preferences (issue 19, "Units, time and names"; migration 11): units, time zone, functional
 * threshold power and threshold/maximum heart rate. The rules for what may be stored are here, said in
 * words, so the preferences page and any later writer refuse the same values.
 */
import type { Units } from '../db/schema.js';
import type { StoreContext } from './context.js';
import type { Assets } from './assets.js';
import { machineTimeZone } from '../activity-words.js';

export interface Preferences {
  units: Units;
  /** IANA time zone; null: not set */
  timeZone: string | null;
  ftpWatts: number | null;
  thresholdHeartRate: number | null;
  maxHeartRate: number | null;
}

export const DEFAULT_PREFERENCES: Readonly<Preferences> = {
  units: 'metric',
  timeZone: null,
  ftpWatts: null,
  thresholdHeartRate: null,
  maxHeartRate: null,
};

/** The ranges migration 11's CHECKs hold (the highest FTPs measured are about 600 W). */
export const PREFERENCE_RANGES = {
  ftpWatts: { min: 1, max: 2000 },
  heartRate: { min: 1, max: 250 },
} as const;

/**
 * The zone's canonical IANA name ("europe/zurich" → "Europe/Zurich"), or null when this runtime's
 * time zone data does not know it: Intl is what will format the times, so Intl decides.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.trim() === '') return null;
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: name.trim() }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** What is wrong with `preferences`, one sentence each; none when they can be stored. */
export function preferenceProblems(preferences: Preferences): string[] {
  const problems: string[] = [];
  // Units arrive from a form as any text, whatever the type says.
  if (!(['metric', 'imperial'] as readonly string[]).includes(preferences.units)) {
    problems.push('Choose metric or imperial units.');
  }
  if (preferences.timeZone !== null && canonicalTimeZone(preferences.timeZone) !== preferences.timeZone) {
    problems.push(
      `"${preferences.timeZone}" is not a time zone this server knows; write one such as Europe/Zurich.`,
    );
  }
  const inRange = (value: number | null, { min, max }: { min: number; max: number }): boolean =>
    value === null || (Number.isInteger(value) && value >= min && value <= max);
  const { ftpWatts, heartRate } = PREFERENCE_RANGES;
  if (!inRange(preferences.ftpWatts, ftpWatts)) {
    problems.push(`The FTP must be a whole number of watts from ${ftpWatts.min} to ${ftpWatts.max}.`);
  }
  if (!inRange(preferences.thresholdHeartRate, heartRate)) {
    problems.push(
      `The threshold heart rate must be a whole number of beats a minute from ${heartRate.min} to ${heartRate.max}.`,
    );
  }
  if (!inRange(preferences.maxHeartRate, heartRate)) {
    problems.push(
      `The maximum heart rate must be a whole number of beats a minute from ${heartRate.min} to ${heartRate.max}.`,
    );
  }
  const { thresholdHeartRate, maxHeartRate } = preferences;
  // Compared only when both are usable: one sentence per problem, none about values already refused.
  if (
    thresholdHeartRate !== null &&
    maxHeartRate !== null &&
    inRange(thresholdHeartRate, heartRate) &&
    inRange(maxHeartRate, heartRate) &&
    thresholdHeartRate > maxHeartRate
  ) {
    problems.push('The threshold heart rate cannot be above the maximum heart rate.');
  }
  return problems;
}

export class UserPreferences {
  readonly #context: StoreContext;
  readonly #assets: Assets;

  constructor(context: StoreContext, assets: Assets) {
    this.#context = context;
    this.#assets = assets;
  }

  /** The rider's preferences; the defaults for a rider who never saved any. */
  async get(userId: number): Promise<Preferences> {
    const row = await this.#context.db
      .selectFrom('user_preferences')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (row === undefined) return { ...DEFAULT_PREFERENCES };
    return {
      units: row.units,
      timeZone: row.time_zone,
      ftpWatts: row.ftp_watts,
      thresholdHeartRate: row.threshold_hr,
      maxHeartRate: row.max_hr,
    };
  }

  /**
   * Stores all of them at once; throws (a programming error) for values preferenceProblems refuses. A
   * new time zone renames the rides named in the old one (Assets.renameMadeUpNames).
   */
  async save(userId: number, preferences: Preferences): Promise<void> {
    const problems = preferenceProblems(preferences);
    if (problems.length > 0) throw new Error(`preferences not stored: ${problems.join(' ')}`);
    const before = (await this.get(userId)).timeZone;
    const values = {
      units: preferences.units,
      time_zone: preferences.timeZone,
      ftp_watts: preferences.ftpWatts,
      threshold_hr: preferences.thresholdHeartRate,
      max_hr: preferences.maxHeartRate,
      updated_at: this.#context.clock(),
    };
    await this.#context.db
      .insertInto('user_preferences')
      .values({ user_id: userId, ...values })
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
      .execute();
    // Names were made in the rider's zone, else the machine's (store/assets.ts, assetName).
    await this.#assets.renameMadeUpNames(
      userId,
      before ?? machineTimeZone(),
      preferences.timeZone ?? machineTimeZone(),
    );
  }

  /**
   * Gives a rider who never saved preferences the time zone `timeZone` (the local account of `rideport
   * up`, issue 19: "default: the machine's zone"); a rider who saved any, even without a zone, keeps them.
   */
  async defaultTimeZone(userId: number, timeZone: string): Promise<void> {
    if (canonicalTimeZone(timeZone) !== timeZone) return;
    await this.#context.db
      .insertInto('user_preferences')
      .values({ user_id: userId, units: 'metric', time_zone: timeZone, updated_at: this.#context.clock() })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .execute();
  }
}
