/** The table of `rideport sync` (options.ts, issue 35): its help and its parseArgs options. */
import { HELP_OPTION, type CommandSpec } from '../options.js';
import { IMPORT_OPTION } from './shared-options.js';

export const SYNC_OPTIONS = [
  {
    name: 'server',
    type: 'string',
    value: '<url>',
    description: 'the platform server, e.g. http://127.0.0.1:4242',
  },
  {
    name: 'api-key',
    type: 'string',
    value: '<key>',
    description: "the API client's key (or the environment variable RIDEPORT_API_KEY)",
  },
  {
    name: 'auth-token',
    type: 'string',
    value: '<token>',
    description:
      'an auth token of the account to upload as (or RIDEPORT_AUTH_TOKEN); or --email and --password',
  },
  {
    name: 'email',
    type: 'string',
    value: '<email>',
    description: 'sign in with email and password (signs in again when the token expires)',
  },
  {
    name: 'password',
    type: 'string',
    value: '<password>',
    description: 'the password for --email (or RIDEPORT_PASSWORD)',
  },
  {
    name: 'once',
    type: 'boolean',
    description:
      'one pass: upload what is there, then exit: 0 when all of it is uploaded, 1 with a line per thing not done (a missing folder, refused credentials, failed rides, files not complete yet)',
  },
  { ...IMPORT_OPTION, defaultWords: 'asked on a terminal' },
  { name: 'devices', type: 'boolean', description: 'also sync detected GPS devices when folders are given' },
  { name: 'retry-failed', type: 'boolean', description: 'upload again the rides the server rejected before' },
  {
    name: 'data',
    type: 'string',
    value: '<dir>',
    defaultWords: 'the per-user data directory',
    description: 'data directory for the ledger and inbox',
  },
  { name: 'log-format', type: 'string', value: '<format>', default: 'text', description: 'text or json' },
  HELP_OPTION,
] as const;

export const syncSpec: CommandSpec = {
  name: 'sync',
  runsUntilStopped: true,
  synopsis:
    '[<folder>...] --server <url> --api-key <key> (--auth-token <token> | --email <email> --password <password>) [--once]',
  summary: 'sync ride files from folders or GPS devices to a server, exactly once',
  about: [
    'Copies every new, complete ride file from the folders (or, without folders, from the GPS devices plugged in) and uploads it to the server, exactly once: a ledger in the data directory remembers what was synced, so rescans, restarts and re-plugged devices upload nothing twice.',
  ],
  groups: [{ title: 'Options', options: SYNC_OPTIONS }],
  notes: [
    "A value may begin with '-': --auth-token -hA7T… and --auth-token=-hA7T… both work. Options win over the environment; the environment keeps credentials out of shell history and the process list.",
  ],
};
