/**
 * The tables of `rideport admin` and of each of its subcommands (options.ts, issue 35): their helps
 * and their parseArgs options. What each subcommand does with them is in admin.ts.
 */
import { HELP_OPTION, type CommandSpec, type OptionSpec } from '../options.js';
import { SHARED_DATABASE_OPTIONS } from './shared-options.js';

/** The options every subcommand takes besides its own. */
export const ADMIN_OPTIONS = [
  {
    name: 'data',
    type: 'string',
    value: '<dir>',
    defaultWords: 'the per-user data directory',
    description: 'the data directory',
  },
  ...SHARED_DATABASE_OPTIONS,
  { name: 'json', type: 'boolean', description: 'print the result as one JSON object' },
  HELP_OPTION,
] as const;

export interface AdminSubcommandSpec {
  readonly name: string;
  readonly synopsis: string;
  readonly summary: string;
  readonly options: readonly OptionSpec[];
}

const USER = (description: string): OptionSpec => ({
  name: 'user',
  type: 'string',
  value: '<email>',
  description,
});
const OF_UP = 'the account, by email (default: the account of `rideport up`)';

export const ADMIN_SUBCOMMANDS: readonly AdminSubcommandSpec[] = [
  {
    name: 'create-user',
    synopsis: '--email <email> --password <password> [--name <name>]',
    summary: 'creates an account',
    options: [
      { name: 'email', type: 'string', value: '<email>', description: "the account's email (required)" },
      {
        name: 'password',
        type: 'string',
        value: '<password>',
        description: 'its password, 8 characters at least (required)',
      },
      { name: 'name', type: 'string', value: '<name>', description: 'the name it shows' },
    ],
  },
  {
    name: 'create-org',
    synopsis: '--name <name> --admin <email>',
    summary: 'creates an organization administered by an account',
    options: [
      { name: 'name', type: 'string', value: '<name>', description: "the organization's name (required)" },
      {
        name: 'admin',
        type: 'string',
        value: '<email>',
        description: 'its administrator, by email (required)',
      },
    ],
  },
  {
    name: 'add-member',
    synopsis: '--org <id> --user <email> [--admin]',
    summary: 'makes an account a member of an organization',
    options: [
      { name: 'org', type: 'string', value: '<id>', description: "the organization's id (required)" },
      USER('the account, by email (required)'),
      { name: 'admin', type: 'boolean', description: 'as an administrator, not a member' },
    ],
  },
  {
    name: 'create-client',
    synopsis: '--owner <email> --name <name> [--redirect-uri <url>...] [--webhook-url <url>]',
    summary: 'creates an API client and prints its key and secret',
    options: [
      {
        name: 'owner',
        type: 'string',
        value: '<email>',
        description: "the client's owner, by email (required)",
      },
      { name: 'name', type: 'string', value: '<name>', description: "the client's name (required)" },
      {
        name: 'redirect-uri',
        type: 'string',
        multiple: true,
        value: '<url>',
        description: 'an OAuth redirect URI it may use',
      },
      { name: 'webhook-url', type: 'string', value: '<url>', description: 'where its webhooks go' },
    ],
  },
  {
    name: 'create-token',
    synopsis: '--user <email> --api-key <key>',
    summary: 'issues an auth token of an account through an API client',
    options: [
      USER('the account, by email (required)'),
      { name: 'api-key', type: 'string', value: '<key>', description: "the API client's key (required)" },
    ],
  },
  {
    name: 'sign-in-link',
    synopsis: '[--user <email>] [--base-url <url>]',
    summary: 'makes a one-time link (2 minutes) that opens the dashboard of the running server signed in',
    options: [
      USER(OF_UP),
      {
        name: 'base-url',
        type: 'string',
        value: '<url>',
        defaultWords: 'the server running on the data directory',
        description: "the server's address",
      },
    ],
  },
  {
    name: 'set-password',
    synopsis: '[--user <email>] [--password <password>]',
    summary: "sets an account's password and signs its browsers out (its auth tokens keep working)",
    options: [
      USER(OF_UP),
      {
        name: 'password',
        type: 'string',
        value: '<password>',
        defaultWords: 'RIDEPORT_PASSWORD, else a new password, printed once',
        description: 'the new password, 8 characters at least',
      },
    ],
  },
  {
    name: 'unshare-route',
    synopsis: '--club <id> --route <id>',
    summary: "takes a route out of a club, as the club's administrators can on its dashboard page",
    options: [
      { name: 'club', type: 'string', value: '<id>', description: "the club's id (required)" },
      { name: 'route', type: 'string', value: '<id>', description: "the route's id (required)" },
    ],
  },
  {
    name: 'purge-tasks',
    synopsis: '',
    summary: 'removes successful upload tasks, and failed ones older than 30 days',
    options: [],
  },
];

export const adminSpec: CommandSpec = {
  name: 'admin',
  needsHost: true,
  synopsis: '<subcommand> [options] [--data <dir>] [--json]',
  summary: 'accounts, passwords, sign-in links, organizations, API clients and auth tokens',
  about: [
    'Manages accounts and credentials in the database of `rideport serve` / `rideport up`, whether or not one of them runs on the data directory (a running server sees the changes at once). `rideport admin <subcommand> --help` says more of each.',
  ],
  subcommands: ADMIN_SUBCOMMANDS,
  groups: [{ title: 'Options', options: ADMIN_OPTIONS }],
};

/** The help of `rideport admin <subcommand>`, from its own table and the options all share. */
export function adminSubcommandSpec(subcommand: AdminSubcommandSpec): CommandSpec {
  return {
    name: `admin ${subcommand.name}`,
    synopsis: `${subcommand.synopsis === '' ? '' : `${subcommand.synopsis} `}[--data <dir>] [--json]`,
    summary: subcommand.summary,
    about: [`${subcommand.summary.charAt(0).toUpperCase()}${subcommand.summary.slice(1)}.`],
    groups: [{ title: 'Options', options: [...subcommand.options, ...ADMIN_OPTIONS] }],
  };
}
