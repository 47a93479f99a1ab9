import { FIT_MESSAGES, FIT_TYPES, type FitMessageName, type FitTypeName } from './profile.generated.js';
import type { FitProfileField, FitProfileMessage } from './profile-types.js';

/** Look-ups over the generated profile, so no code types a message or field number by hand. */

const messagesByNum = new Map<number, FitProfileMessage>(
  Object.values(FIT_MESSAGES).map((message) => [message.num, message]),
);

export function messageByNum(num: number): FitProfileMessage | undefined {
  return messagesByNum.get(num);
}

export function messageNum(name: FitMessageName): number {
  return FIT_MESSAGES[name].num;
}

/** The profile field of `message` named `name` (throws on a typo: the names are fixed at build time). */
export function field(message: FitMessageName, name: string): FitProfileField {
  const found = Object.values(FIT_MESSAGES[message].fields).find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`FIT profile: ${message} has no field ${name}`);
  return found;
}

export function fieldNum(message: FitMessageName, name: string): number {
  return field(message, name).num;
}

/** The profile's name of an enumerated value, or null. */
export function typeValueName(type: FitTypeName, value: number | undefined): string | null {
  if (value === undefined || Number.isNaN(value)) return null;
  return FIT_TYPES[type][value] ?? null;
}

/** The number of an enumerated value by its profile name (throws on a typo). */
export function typeValue(type: FitTypeName, name: string): number {
  for (const [value, candidate] of Object.entries(FIT_TYPES[type])) {
    if (candidate === name) return Number(value);
  }
  throw new Error(`FIT profile: type ${type} has no value ${name}`);
}

const snakeCases = new Map<string, string>();
/** More names than the profile has: a name passed in that is not the profile's is not remembered. */
const MAX_SNAKE_CASES = 4096;

/** The profile spells names in camelCase (`virtualActivity`); the public model uses snake_case. */
export function snakeCase(name: string): string {
  let snake = snakeCases.get(name);
  if (snake === undefined) {
    snake = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase();
    if (snakeCases.size < MAX_SNAKE_CASES) snakeCases.set(name, snake);
  }
  return snake;
}

/** Seconds between the Unix epoch and the FIT epoch (1989-12-31T00:00:00Z). */
export const FIT_EPOCH_OFFSET_SECONDS = 631_065_600;

/** FIT date_time values below this are seconds since the device powered on, not UTC (FIT profile, date_time). */
export const FIT_MIN_ABSOLUTE_TIME = 0x10000000;
