/** The table of `rideport up` (options.ts, issue 35): its help and its parseArgs options. */
import { HELP_OPTION, type CommandSpec } from '../options.js';
import { CONNECTION_GROUP, HOST_OPTION, IMPORT_OPTION, PORT_OPTION } from './shared-options.js';

export const UP_OPTIONS = [
  {
    name: 'watch',
    type: 'string',
    multiple: true,
    value: '<folder>',
    description: 'a folder to sync as well',
  },
  { ...IMPORT_OPTION, defaultWords: 'all' },
  {
    name: 'no-devices',
    type: 'boolean',
    description: 'do not look for GPS devices, only the watched folders',
  },
  HOST_OPTION,
  PORT_OPTION,
  {
    name: 'data',
    type: 'string',
    value: '<dir>',
    defaultWords:
      "the per-user data directory, printed at start; the desktop app's folder is another one, see the README",
    description: 'data directory',
  },
  {
    name: 'log-format',
    type: 'string',
    value: '<format>',
    default: 'text',
    description: 'text or json',
  },
  HELP_OPTION,
] as const;

export const upSpec: CommandSpec = {
  name: 'up',
  runsUntilStopped: true,
  needsHost: true,
  synopsis:
    '[--watch <folder>...] [--no-devices] [--host <host>] [--port <port>] [--data <dir>] [--import all|new|<N>d] [connection limits]',
  summary: 'the local server, a local account and the sync engine: the everyday command',
  about: [
    'The everyday command: the local platform server on an embedded SQLite database, a local account (created on first run; its password is printed once), and the sync engine, which uploads every new ride from the GPS devices it detects and from the watched folders to that server, exactly once.',
    'Webhooks may go to this computer and private networks (127.0.0.1, 192.168.x.x, …), as a local setup wants. Runs until SIGINT or SIGTERM. One server runs on a data directory at a time (this, `rideport serve` or the desktop app): a second one exits with status 1 and says which process holds it.',
  ],
  groups: [{ title: 'Options', options: UP_OPTIONS }, CONNECTION_GROUP],
};
