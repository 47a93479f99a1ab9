/** The table of `rideport worker` (options.ts, issue 35): its help and its parseArgs options. */
import { HELP_OPTION, type CommandSpec } from '../options.js';
import { SHARED_DATABASE_OPTIONS } from './shared-options.js';

export const WORKER_OPTIONS = [
  ...SHARED_DATABASE_OPTIONS,
  {
    name: 'workers',
    type: 'string',
    value: '<n>',
    defaultWords: 'one per core',
    description: 'parse workers (threads) in this process',
  },
  {
    name: 'log-format',
    type: 'string',
    value: '<format>',
    default: 'text',
    description: 'text: events in words; json: one JSON line per event (pino)',
  },
  HELP_OPTION,
] as const;

export const workerSpec: CommandSpec = {
  name: 'worker',
  runsUntilStopped: true,
  needsHost: true,
  synopsis: '--database <url> --master-key-file <file> [--workers <n>] [--log-format text|json]',
  summary: 'read uploads from a shared PostgreSQL database, without serving HTTP',
  about: [
    'Reads uploads from a PostgreSQL database that Rideport servers share, without serving HTTP, until SIGINT or SIGTERM: each parse worker claims a waiting upload, reads the file and stores its rides. Run servers with `rideport serve --no-workers` to leave all reading to workers like this one. On SQLite (the data directory) the server reads its uploads itself, and a worker of its own cannot run.',
  ],
  groups: [{ title: 'Options', options: WORKER_OPTIONS }],
};
