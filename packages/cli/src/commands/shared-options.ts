/**
 * Options that several commands share, as rows of their tables (options.ts, issue 35). Only words and
 * defaults here: no module of the server is loaded to show a help. The server's connection defaults are
 * written out as words (parseArgs fills none in: an absent flag leaves the server's own), and
 * shared-options.test.ts checks them against the server's.
 */
import type { OptionGroup, OptionSpec } from '../options.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4242;

export const HOST_OPTION = {
  name: 'host',
  type: 'string',
  value: '<host>',
  default: DEFAULT_HOST,
  description: 'address to listen on',
} as const satisfies OptionSpec;

export const PORT_OPTION = {
  name: 'port',
  type: 'string',
  value: '<port>',
  default: String(DEFAULT_PORT),
  description: 'port to listen on; 0 picks a free one',
} as const satisfies OptionSpec;

export const IMPORT_OPTION = {
  name: 'import',
  type: 'string',
  value: '<window>',
  description:
    'how far back the first sync of a new folder or device goes: all, new (nothing before now) or <N>d (the last N days)',
} as const satisfies OptionSpec;

/** The server's connection limits (issue 17; connection-flags.ts reads them), in seconds for times. */
export const CONNECTION_DEFAULTS = {
  perAddress: 100,
  headerTimeoutSeconds: 10,
  requestTimeoutSeconds: 120,
  keepAliveTimeoutSeconds: 5,
  idleTimeoutSeconds: 60,
} as const;

export const CONNECTION_OPTIONS = [
  {
    name: 'max-connections',
    type: 'string',
    value: '<n>',
    defaultWords: '1000, or half the open-file limit if lower',
    description:
      'connections open at once; at the limit the oldest one with no request in progress makes way',
  },
  {
    name: 'max-connections-per-address',
    type: 'string',
    value: '<n>',
    defaultWords: String(CONNECTION_DEFAULTS.perAddress),
    description: 'connections from one client address when listening beyond loopback; 0: no limit',
  },
  {
    name: 'header-timeout',
    type: 'string',
    value: '<s>',
    defaultWords: String(CONNECTION_DEFAULTS.headerTimeoutSeconds),
    description: "seconds for a request's header to arrive",
  },
  {
    name: 'request-timeout',
    type: 'string',
    value: '<s>',
    defaultWords: String(CONNECTION_DEFAULTS.requestTimeoutSeconds),
    description: 'seconds for a whole request to arrive, upload included',
  },
  {
    name: 'keep-alive-timeout',
    type: 'string',
    value: '<s>',
    defaultWords: String(CONNECTION_DEFAULTS.keepAliveTimeoutSeconds),
    description: 'seconds an idle keep-alive connection stays open',
  },
  {
    name: 'idle-timeout',
    type: 'string',
    value: '<s>',
    defaultWords: String(CONNECTION_DEFAULTS.idleTimeoutSeconds),
    description: 'seconds a connection may stay silent',
  },
] as const satisfies readonly OptionSpec[];

export const CONNECTION_GROUP: OptionGroup = { title: 'Connection limits', options: CONNECTION_OPTIONS };

export const SHARED_DATABASE_OPTIONS = [
  {
    name: 'database',
    type: 'string',
    value: '<url>',
    description:
      'a PostgreSQL database (postgres://user@host:5432/name) instead of the SQLite database in --data, shared by several servers; also RIDEPORT_DATABASE_URL',
  },
  {
    name: 'master-key-file',
    type: 'string',
    value: '<file>',
    description:
      'with --database: the file holding the master key every server and admin shares (32 bytes in base64: `openssl rand -base64 32`); also RIDEPORT_MASTER_KEY',
  },
] as const satisfies readonly OptionSpec[];
