/** The table of `rideport serve` (options.ts, issue 35): its help and its parseArgs options. */
import { HELP_OPTION, type CommandSpec } from '../options.js';
import { CONNECTION_GROUP, HOST_OPTION, PORT_OPTION, SHARED_DATABASE_OPTIONS } from './shared-options.js';

export const SERVE_OPTIONS = [
  HOST_OPTION,
  PORT_OPTION,
  {
    name: 'data',
    type: 'string',
    value: '<dir>',
    defaultWords: 'the per-user data directory',
    description: 'data directory',
  },
  {
    name: 'base-url',
    type: 'string',
    value: '<url>',
    defaultWords: 'the listening address',
    description: 'public URL of the server, for links in responses',
  },
  {
    name: 'log-format',
    type: 'string',
    value: '<format>',
    default: 'text',
    description: "text: the server's events in words; json: one JSON line per request and event (pino)",
  },
  {
    name: 'allow-private-webhooks',
    type: 'boolean',
    description:
      'deliver webhooks to loopback and private-network addresses too (127.0.0.1, 10.x, 192.168.x, fc00::/7, …); link-local and cloud-metadata addresses stay refused',
  },
  {
    name: 'no-workers',
    type: 'boolean',
    description:
      'with --database: accept uploads but leave reading them to `rideport worker` processes on the same database',
  },
  ...SHARED_DATABASE_OPTIONS,
  HELP_OPTION,
] as const;

export const serveSpec: CommandSpec = {
  name: 'serve',
  runsUntilStopped: true,
  needsHost: true,
  synopsis:
    '[--host <host>] [--port <port>] [--data <dir> | --database <url> [--no-workers]] [--base-url <url>] [--log-format text|json] [--allow-private-webhooks] [connection limits]',
  summary: 'serve the platform API and pages on the local database, or on a shared PostgreSQL',
  about: [
    'Serves the Route and Ride Platform API (v1 and legacy), OAuth and the web pages on an embedded SQLite database, until SIGINT or SIGTERM. One server runs on a data directory at a time: a second one exits with status 1 and says which process holds it. With --database, on PostgreSQL instead: any number of servers may share one database (docs/operators/postgresql.md).',
  ],
  groups: [{ title: 'Options', options: SERVE_OPTIONS }, CONNECTION_GROUP],
};
