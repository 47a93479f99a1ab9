/**
 * The flags of `serve` and `up` that change the server's connection limits (issue 17; the server's
 * ConnectionLimits; docs/operators/limits.md, "Connections"). Times are given in seconds; an absent flag leaves the
 * server's default. Their table is in commands/shared-options.ts (issue 35).
 */
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '@rideport/server';
import type { CONNECTION_OPTIONS } from './commands/shared-options.js';
import { UsageError } from './errors.js';

type ConnectionFlag = (typeof CONNECTION_OPTIONS)[number]['name'];

const seconds = (milliseconds: number): number => milliseconds / 1000;

/** A whole number from `min` up, or a usage error naming the flag. */
function wholeNumber(text: string, flag: ConnectionFlag, command: string, min: number, what: string): number {
  const value = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min)) {
    throw new UsageError(`${command}: --${flag} must be ${what} from ${min} up, got '${text}'`);
  }
  return value;
}

/** The time flags, each in seconds, and the limit in ms each sets. */
const TIME_FLAGS = [
  ['header-timeout', 'headerTimeoutMs'],
  ['request-timeout', 'requestTimeoutMs'],
  ['keep-alive-timeout', 'keepAliveTimeoutMs'],
  ['idle-timeout', 'idleTimeoutMs'],
] as const;

/** The limits the flags ask for (only those given). */
export function connectionLimitsOption(
  values: Partial<Record<ConnectionFlag, string | undefined>>,
  command: string,
): Partial<ConnectionLimits> {
  const limits: Partial<ConnectionLimits> = {};
  const given = (flag: ConnectionFlag, min: number, what: string): number | undefined => {
    const text = values[flag];
    return text === undefined ? undefined : wholeNumber(text, flag, command, min, what);
  };
  const maxConnections = given('max-connections', 1, 'a whole number');
  if (maxConnections !== undefined) limits.maxConnections = maxConnections;
  const perAddress = given('max-connections-per-address', 0, 'a whole number');
  if (perAddress !== undefined) limits.perAddress = perAddress === 0 ? null : perAddress;
  for (const [flag, limit] of TIME_FLAGS) {
    const timeSeconds = given(flag, 1, 'a whole number of seconds');
    if (timeSeconds !== undefined) limits[limit] = timeSeconds * 1000;
  }
  const header = limits.headerTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.headerTimeoutMs;
  const request = limits.requestTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.requestTimeoutMs;
  if (request < header) {
    throw new UsageError(
      `${command}: --request-timeout (${seconds(request)} s) must not be shorter than --header-timeout (${seconds(header)} s)`,
    );
  }
  return limits;
}
