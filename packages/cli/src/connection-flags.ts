/**
 * The flags of `serve` and `up` that change the server's connection limits (issue 17; the server's
 * ConnectionLimits; docs/operators/limits.md, "Connections"). Times are given in seconds; an absent flag leaves the
 * server's default.
 */
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '@rideport/server';
import { UsageError } from './errors.js';

export const CONNECTION_FLAGS = {
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'header-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
} as const;

type ConnectionFlag = keyof typeof CONNECTION_FLAGS;

const seconds = (milliseconds: number): number => milliseconds / 1000;

/** The flags' lines of a command's help. */
export const CONNECTION_FLAGS_HELP = `  --max-connections <n>    connections open at once (default 1000, or half the open-file limit if
                           lower); at the limit the oldest one with no request in progress makes way
  --max-connections-per-address <n>
                           connections from one client address when listening beyond loopback
                           (default ${String(DEFAULT_CONNECTION_LIMITS.perAddress)}; 0: no limit)
  --header-timeout <s>     seconds for a request's header to arrive (default ${seconds(DEFAULT_CONNECTION_LIMITS.headerTimeoutMs)})
  --request-timeout <s>    seconds for a whole request to arrive, upload included (default ${seconds(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs)})
  --keep-alive-timeout <s> seconds an idle keep-alive connection stays open (default ${seconds(DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs)})
  --idle-timeout <s>       seconds a connection may stay silent (default ${seconds(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs)})
`;

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
