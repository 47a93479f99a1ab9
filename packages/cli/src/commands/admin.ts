/**
 * `rideport admin <subcommand> [--data <dir>] [--json]` (docs/contributors/architecture.md, "`rideport` command"; issue 4):
 * accounts, organizations, API clients and auth tokens, written straight into the database (no
 * server needs to run; a running one sees the changes at once).
 */
import { randomBytes } from 'node:crypto';
import { ownerOnlyDirectory } from '@rideport/files';
import {
  ConflictError,
  databasePathIn,
  issueSignInLink,
  openPlatform,
  type Platform,
  runningServerUrl,
  SIGN_IN_LINK_LIFETIME_MS,
} from '@rideport/server';
import { LOCAL_ACCOUNT_EMAIL } from '@rideport/host';
import { parseCommandArgs } from '../args.js';
import { dataDirectory } from '../data-directory.js';
import { CliError, CliErrorCode, OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { parseConfigOf } from '../options.js';
import { sharedDatabaseOption } from '../shared-database.js';
import type { CliIo } from '../io.js';
import { ADMIN_OPTIONS, ADMIN_SUBCOMMANDS } from './admin-options.js';

/** What a subcommand prints: the JSON object of `--json`, and the same in words. */
interface Outcome {
  json: Record<string, unknown>;
  text: string;
}

type Values = Record<string, string | (string | boolean)[] | boolean | undefined>;

/** What a subcommand does; its options are in its table (admin-options.ts, issue 35). */
interface Subcommand {
  name: string;
  /** options that must be given, checked before the database is opened */
  requires: string[];
  /** further checks of the options alone, also before the database is opened */
  check?(values: Values): void;
  run(platform: Platform, values: Values, context: AdminContext): Promise<Outcome>;
}

/** What a subcommand may need beyond the database. */
interface AdminContext {
  /** the data directory; null on a shared PostgreSQL database (--database), which has none */
  directory: string | null;
  env: Readonly<Record<string, string | undefined>>;
}

function required(values: Values, name: string, subcommand: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`admin ${subcommand}: --${name} is required (see rideport admin --help)`);
  }
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

async function personByEmail(
  platform: Platform,
  email: string,
): Promise<{ id: number; name: string; email: string | null }> {
  const user = await platform.store.users.findByEmail(email);
  if (user === undefined) throw new CliError(CliErrorCode.NOT_FOUND, `no user has the email ${email}`);
  return user;
}

/** `--user <email>`, or the account of `rideport up` and the desktop app when it is not given. */
async function userOption(
  platform: Platform,
  values: Values,
): Promise<{ id: number; name: string; email: string | null }> {
  const email = optional(values, 'user');
  if (email !== undefined) return personByEmail(platform, email);
  const local = await platform.store.users.findByEmail(LOCAL_ACCOUNT_EMAIL);
  if (local === undefined) {
    throw new CliError(
      CliErrorCode.NOT_FOUND,
      `this data directory has no account of rideport up (${LOCAL_ACCOUNT_EMAIL}): name the account with --user <email>`,
    );
  }
  return local;
}

/** `--<name> <id>`: a record id (a whole number from 1), else a usage error. */
function recordId(values: Values, name: string): number {
  const raw = values[name];
  const id = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new UsageError(`admin: --${name} must be an id, a whole number from 1`);
  }
  return id;
}

/** The shortest password `create-user` and `set-password` take. */
const MINIMUM_PASSWORD_CHARS = 8;

/** The store's conflict (a record like it exists), as our CONFLICT. */
function conflictOr(error: unknown, message: string): unknown {
  return error instanceof ConflictError
    ? new CliError(CliErrorCode.CONFLICT, message, { cause: error })
    : error;
}

const SUBCOMMANDS: Subcommand[] = [
  {
    name: 'create-user',
    requires: ['email', 'password'],
    check(values) {
      if (required(values, 'password', 'create-user').length < MINIMUM_PASSWORD_CHARS) {
        throw new UsageError(
          `admin create-user: --password must have at least ${MINIMUM_PASSWORD_CHARS} characters`,
        );
      }
    },
    async run(platform, values) {
      const email = required(values, 'email', 'create-user');
      const password = required(values, 'password', 'create-user');
      const user = await platform.store.users
        .createPerson({ email, password, name: optional(values, 'name') ?? null })
        .catch((error: unknown) => {
          throw conflictOr(error, `a user with the email ${email} exists already`);
        });
      return {
        json: { id: user.id, email: user.email, name: user.name },
        text: `created user ${user.id}: ${user.name} <${user.email ?? ''}>`,
      };
    },
  },
  {
    name: 'create-org',
    requires: ['name', 'admin'],
    async run(platform, values) {
      const name = required(values, 'name', 'create-org');
      const admin = await personByEmail(platform, required(values, 'admin', 'create-org'));
      const organization = await platform.store.users.createOrganization(name, admin.id);
      return {
        json: { id: organization.id, name: organization.name },
        text: `created organization ${organization.id}: ${organization.name}, administered by ${admin.email ?? admin.name}`,
      };
    },
  },
  {
    name: 'add-member',
    requires: ['org', 'user'],
    async run(platform, values) {
      const organizationId = Number(required(values, 'org', 'add-member'));
      const organization = Number.isInteger(organizationId)
        ? await platform.store.users.findById(organizationId)
        : undefined;
      if (organization?.kind !== 'organization') {
        throw new CliError(CliErrorCode.NOT_FOUND, `no organization has the id ${String(values['org'])}`);
      }
      const user = await personByEmail(platform, required(values, 'user', 'add-member'));
      const role = values['admin'] === true ? 'admin' : 'member';
      await platform.store.users.setMembership(organization.id, user.id, role);
      return {
        json: { organization_id: organization.id, user_id: user.id, role },
        text: `${user.email ?? user.name} is now ${role === 'admin' ? 'an administrator' : 'a member'} of ${organization.name}`,
      };
    },
  },
  {
    name: 'create-client',
    requires: ['owner', 'name'],
    check(values) {
      const uris = [
        ...((values['redirect-uri'] as string[] | undefined) ?? []),
        optional(values, 'webhook-url'),
      ];
      for (const uri of uris) {
        if (uri !== undefined && !URL.canParse(uri)) {
          throw new UsageError(`admin create-client: '${uri}' is not a URL`);
        }
      }
    },
    async run(platform, values) {
      const owner = await personByEmail(platform, required(values, 'owner', 'create-client'));
      const redirectUris = (values['redirect-uri'] as string[] | undefined) ?? [];
      const client = await platform.store.apiClients.create(owner.id, {
        name: required(values, 'name', 'create-client'),
        redirectUris,
        webhookUrl: optional(values, 'webhook-url') ?? null,
      });
      const secret = platform.store.apiClients.secretOf(client);
      return {
        json: {
          id: client.id,
          name: client.name,
          api_key: client.apiKey,
          client_id: client.apiKey,
          client_secret: secret,
        },
        text: `created API client ${client.id}: ${client.name}\napi_key (client_id)  ${client.apiKey}\nclient_secret        ${secret}`,
      };
    },
  },
  {
    name: 'create-token',
    requires: ['user', 'api-key'],
    async run(platform, values) {
      const user = await personByEmail(platform, required(values, 'user', 'create-token'));
      const apiKey = required(values, 'api-key', 'create-token');
      const client = await platform.store.apiClients.findByApiKey(apiKey);
      if (client === undefined)
        throw new CliError(CliErrorCode.NOT_FOUND, `no API client has the key ${apiKey}`);
      const { token } = await platform.store.authTokens.issue(user.id, client.id);
      return {
        json: { auth_token: token, api_key: client.apiKey, user_id: user.id },
        text: `auth token for ${user.email ?? user.name} through ${client.name}: ${token}`,
      };
    },
  },
  {
    // Issue 20: a rider whose printed password is lost and whose link from `up` expired (2 minutes)
    // gets a new link to the running server's dashboard.
    name: 'sign-in-link',
    requires: [],
    check(values) {
      const baseUrl = optional(values, 'base-url');
      if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl)) {
        throw new UsageError(`admin sign-in-link: --base-url must be an http or https URL, got '${baseUrl}'`);
      }
    },
    async run(platform, values, context) {
      const user = await userOption(platform, values);
      let baseUrl = optional(values, 'base-url') ?? null;
      if (baseUrl === null) {
        if (context.directory === null) {
          throw new UsageError(
            "admin sign-in-link: on PostgreSQL give --base-url <the servers' public address, e.g. https://rides.example>: there is no data directory to find a running server in",
          );
        }
        baseUrl = await runningServerUrl(context.directory);
        if (baseUrl === null) {
          throw new CliError(
            CliErrorCode.NOT_RUNNING,
            `no Rideport server runs on ${context.directory}, and a link works only for 2 minutes: start rideport up (or rideport serve) on it, then run this again (or give the server's address with --base-url)`,
          );
        }
      }
      const url = await issueSignInLink(platform.store, new URL(baseUrl), user.id);
      const minutes = SIGN_IN_LINK_LIFETIME_MS / 60_000;
      return {
        json: {
          url,
          user_id: user.id,
          email: user.email,
          expires_in_seconds: SIGN_IN_LINK_LIFETIME_MS / 1000,
        },
        text: `Sign-in link for ${user.email ?? user.name} (works once, for ${minutes} minutes):\n${url}`,
      };
    },
  },
  {
    name: 'set-password',
    requires: [],
    check(values) {
      const password = values['password'];
      if (typeof password === 'string' && password.length < MINIMUM_PASSWORD_CHARS) {
        throw new UsageError(
          `admin set-password: --password must have at least ${MINIMUM_PASSWORD_CHARS} characters`,
        );
      }
    },
    async run(platform, values, context) {
      const user = await userOption(platform, values);
      const given = optional(values, 'password') ?? context.env['RIDEPORT_PASSWORD'];
      if (given !== undefined && given !== '' && given.length < MINIMUM_PASSWORD_CHARS) {
        throw new UsageError(
          `admin set-password: RIDEPORT_PASSWORD must have at least ${MINIMUM_PASSWORD_CHARS} characters`,
        );
      }
      // Without one given, a new random password, as `up` makes the first: 96 bits, base64url.
      const password = given === undefined || given === '' ? randomBytes(12).toString('base64url') : given;
      const ended = await platform.store.users.setPassword(user.id, password);
      const who = user.email ?? user.name;
      const shown = password === given ? '' : ` to ${password} (shown only now)`;
      return {
        json: {
          user_id: user.id,
          email: user.email,
          ...(password === given ? {} : { password }),
          sessions_ended: ended,
        },
        text: `set the password of ${who}${shown}; ${ended === 1 ? '1 browser was' : `${ended} browsers were`} signed out, auth tokens keep working`,
      };
    },
  },
  {
    // Issue 20, "Clubs": what a club's administrator does on the club's page, for whoever runs the
    // server; the store's rules (store/clubs.ts) with no one to check (actor null).
    name: 'unshare-route',
    requires: ['club', 'route'],
    check(values) {
      recordId(values, 'club');
      recordId(values, 'route');
    },
    async run(platform, values) {
      const clubId = recordId(values, 'club');
      const routeId = recordId(values, 'route');
      const outcome = await platform.store.clubs.unshareRoute(clubId, routeId, null);
      if (outcome === 'no_such_club')
        throw new CliError(CliErrorCode.NOT_FOUND, `there is no club ${clubId}`);
      if (outcome === 'not_shared') {
        throw new CliError(CliErrorCode.NOT_FOUND, `route ${routeId} is not shared with club ${clubId}`);
      }
      return {
        json: { club_id: clubId, route_id: routeId, removed: true },
        text: `took route ${routeId} out of club ${clubId}`,
      };
    },
  },
  {
    // docs/contributors/decisions.md §5: what the server does nightly, now: successful upload tasks, and failed ones
    // older than 30 days.
    name: 'purge-tasks',
    requires: [],
    async run(platform) {
      const { successful, failed } = await platform.store.tasks.purge();
      return {
        json: { successful, failed },
        text: `purged ${successful} successful and ${failed} failed upload tasks`,
      };
    },
  },
];

/** Runs a subcommand; its help, and an unknown name, were answered from the tables (admin-help.ts). */
export async function run(args: string[], io: CliIo): Promise<number> {
  const [name = '', ...rest] = args;
  const subcommand = SUBCOMMANDS.find((candidate) => candidate.name === name);
  const table = ADMIN_SUBCOMMANDS.find((candidate) => candidate.name === name);
  if (subcommand === undefined || table === undefined) {
    throw new UsageError(`admin: unknown subcommand '${name}' (see rideport admin --help)`);
  }
  const { values, positionals } = parseCommandArgs(
    `admin ${name}`,
    rest,
    parseConfigOf([...table.options, ...ADMIN_OPTIONS]) as Record<
      string,
      { type: 'string' | 'boolean'; multiple?: boolean }
    >,
  );
  if (positionals.length > 0) {
    throw new UsageError(`admin ${name}: unexpected argument '${positionals[0]!}'`);
  }
  for (const option of subcommand.requires) required(values, option, name);
  subcommand.check?.(values);
  const data = typeof values['data'] === 'string' ? values['data'] : undefined;
  const shared = sharedDatabaseOption(values, io.env ?? {}, io.cwd, `admin ${name}`);
  let outcome: Outcome;
  let platform: Platform | undefined;
  const directory = dataDirectory(data, io.cwd);
  try {
    platform = await openPlatform({
      databasePath: databasePathIn(directory),
      ...(shared === undefined ? {} : shared),
      baseUrl: 'http://127.0.0.1',
    });
    // Issue 20: as serve and up do at start, though admin claims no lock.
    if (shared === undefined) ownerOnlyDirectory(directory);
    outcome = await subcommand.run(platform, values, {
      directory: shared === undefined ? directory : null,
      env: io.env ?? {},
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new OperationError(`admin ${name}`, error);
  } finally {
    await platform?.close();
  }
  io.stdout.write(values['json'] === true ? `${JSON.stringify(outcome.json)}\n` : `${outcome.text}\n`);
  return ExitCode.OK;
}
