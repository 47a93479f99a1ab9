/**
 * `rideport sync [<folder>...] --server <url> --api-key <key> (--auth-token <t> | --email <e>
 * --password <p>) [--once]` (docs/contributors/architecture.md; issue 6): the sync engine, headless, against any server that
 * speaks the API. Without folders it syncs the GPS devices it detects.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ClientErrorCode, isClientError, RideportClient, type Credentials } from '@rideport/client';
import { ownerOnlyDirectory } from '@rideport/files';
import {
  currentUser,
  defaultMountRoots,
  renewCredentialsWhenRefused,
  SyncEngine,
  syncFolders,
  type SyncStatus,
} from '@rideport/sync';
import { announce, announceStartUp, type LogFormat, logFormatOption, untilStopSignal } from '../announce.js';
import { parseCommandArgs } from '../args.js';
import { dataDirectory } from '../data-directory.js';
import { CliError, CliErrorCode, failureLine, OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { parseConfigOf } from '../options.js';
import { reportSync } from '../sync-report.js';
import { answerImportQuestions, importWindowOption } from '../sync-host.js';
import { SYNC_OPTIONS } from './sync-options.js';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('sync', args, parseConfigOf(SYNC_OPTIONS));
  const server = values.server;
  if (server === undefined || !/^https?:\/\/[^/]/.test(server) || !URL.canParse(server)) {
    throw new UsageError('sync: --server must be the http or https URL of the server');
  }
  const { apiKey, login, authToken } = syncCredentials(values, io.env ?? {});
  const logFormat = logFormatOption(values['log-format'], 'sync');
  const firstImport = importWindowOption(values.import, 'sync');
  const credentials: Credentials =
    authToken === null ? { kind: 'api-key', apiKey } : { kind: 'auth-token', apiKey, authToken };
  // Issue 20: a folder named for one pass must be there, else nothing is uploaded (not even the rides
  // of the other folders): a mistyped path is an error, not an empty success.
  const folderPaths = positionals.map((folder) => resolve(io.cwd, folder));
  if (values.once === true) for (const folder of folderPaths) await mustBeFolder(folder);
  const client = new RideportClient({ baseUrl: server, credentials });
  try {
    if (login !== null) await signIn(client, login);
    const directory = dataDirectory(values.data, io.cwd);
    // Issue 20: the ledger and inbox are the user's alone, whatever the umask and whatever came before.
    ownerOnlyDirectory(directory);
    const folders = syncFolders(directory, server);
    const withDevices = positionals.length === 0 || values.devices === true;
    const engine = new SyncEngine({
      ...folders,
      uploader: client,
      folders: folderPaths,
      deviceRoots: withDevices ? defaultMountRoots(process.platform, currentUser()) : [],
      ...(firstImport === undefined ? {} : { firstImport }),
    });
    try {
      await answerImportQuestions(engine, io, 'sync');
      if (values['retry-failed'] === true) engine.retryFailed();
      const report = reportSync(engine, io, logFormat, { once: values.once === true });
      // With email and password, a refused token is replaced by signing in again, at most once a
      // minute (failed sign-ins are rate-limited by the server).
      const relogin =
        login === null
          ? null
          : renewCredentialsWhenRefused(
              engine,
              async () => {
                await client.legacy.login(login.email, login.password);
              },
              60_000,
            );
      try {
        if (values.once === true) {
          const status = await engine.syncOnce();
          report.flush();
          return await finishOnce(status, report.runCounts(), client, io, logFormat);
        }
        engine.start();
        announceStartUp(io, logFormat, `syncing to ${server}; stop with Ctrl-C`, { server });
        // Signal handlers do not keep the process alive, and nothing else may: the engine's timers and
        // folder watches never do (issue 22), and a device not plugged in yet has no watch at all.
        const alive = setInterval(() => undefined, 2 ** 31 - 1);
        let signal: NodeJS.Signals;
        try {
          signal = await untilStopSignal();
        } finally {
          clearInterval(alive);
        }
        announce(io, logFormat, `${signal}: stopping`, { signal });
        return ExitCode.OK;
      } finally {
        relogin?.();
        report.stop();
      }
    } finally {
      await engine.stop();
    }
  } finally {
    await client.close();
  }
}

/** The environment variables that stand in for the credential options (issue 20; docs/riders/devices-and-sync.md). */
const CREDENTIAL_VARIABLES = {
  apiKey: 'RIDEPORT_API_KEY',
  authToken: 'RIDEPORT_AUTH_TOKEN',
  password: 'RIDEPORT_PASSWORD',
} as const;

interface SyncCredentials {
  apiKey: string;
  /** email and password to sign in with; null with an auth token */
  login: { email: string; password: string } | null;
  authToken: string | null;
}

/**
 * The credentials from the options, else from the environment (issue 20: so that they stay out of
 * shell history and process lists). An option always wins over its variable, and an option naming one
 * way to sign in (--auth-token, or --email) wins over the variable of the other.
 */
function syncCredentials(
  values: { 'api-key'?: string; 'auth-token'?: string; email?: string; password?: string },
  env: Readonly<Record<string, string | undefined>>,
): SyncCredentials {
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const apiKey = values['api-key'] ?? fromEnv(CREDENTIAL_VARIABLES.apiKey);
  if (apiKey === undefined || apiKey === '') {
    throw new UsageError(`sync: --api-key (or ${CREDENTIAL_VARIABLES.apiKey}) is required`);
  }
  const either = `give either --auth-token (or ${CREDENTIAL_VARIABLES.authToken}) or --email and --password (or ${CREDENTIAL_VARIABLES.password})`;
  const optionToken = values['auth-token'];
  if (optionToken !== undefined && (values.email !== undefined || values.password !== undefined)) {
    throw new UsageError(`sync: ${either}, not both`);
  }
  if (values.email !== undefined || values.password !== undefined) {
    const password = values.password ?? fromEnv(CREDENTIAL_VARIABLES.password);
    if (values.email === undefined || values.email === '' || password === undefined || password === '') {
      throw new UsageError(
        `sync: --email and --password go together (the password may come from ${CREDENTIAL_VARIABLES.password})`,
      );
    }
    return { apiKey, login: { email: values.email, password }, authToken: null };
  }
  const authToken = optionToken ?? fromEnv(CREDENTIAL_VARIABLES.authToken);
  if (authToken === undefined || authToken === '') throw new UsageError(`sync: ${either}`);
  return { apiKey, login: null, authToken };
}

async function signIn(client: RideportClient, login: { email: string; password: string }): Promise<void> {
  try {
    await client.legacy.login(login.email, login.password);
  } catch (error) {
    throw new OperationError('sync: sign-in', error);
  }
}

async function mustBeFolder(folder: string): Promise<void> {
  const stats = await stat(folder).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  });
  if (stats === null || !stats.isDirectory()) {
    throw new CliError(
      CliErrorCode.NO_FOLDER,
      `${folder} ${stats === null ? 'does not exist' : 'is not a folder'}; nothing was uploaded`,
    );
  }
}

/** `14:22:05 UTC` of an ISO 8601 time. */
function clockTime(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

/**
 * The end of `sync --once` (issue 20; docs/riders/devices-and-sync.md): the summary of this run on stdout, then
 * an error line on stderr for each thing that is not done, and the exit status: 0 when everything
 * found was uploaded, else 1. The server's state (refused, away, full) or a full disk here is the one
 * line there is; else each of: rides that failed in this run, rides still not uploaded, files not
 * complete yet. With nothing to upload, the credentials are still checked, so that a refused token or
 * an unreachable server is never a silent success.
 */
async function finishOnce(
  status: SyncStatus,
  run: { synced: number; failed: number },
  client: RideportClient,
  io: CliIo,
  logFormat: LogFormat,
): Promise<number> {
  const { counts, state } = status;
  const notUploaded = counts.queued + counts.uploading;
  const earlierFailures = counts.failed - run.failed;
  const earlier =
    earlierFailures > 0 ? `; ${earlierFailures} failed before (--retry-failed uploads them again)` : '';
  announce(
    io,
    logFormat,
    `${run.synced} synced, ${run.failed} failed, ${notUploaded} not uploaded yet, ${counts.waiting} not complete yet${earlier}`,
    {
      event: 'summary',
      run: { synced: run.synced, failed: run.failed, notUploaded, notComplete: counts.waiting },
      counts,
    },
  );
  if (state.kind === 'needs-sign-in') {
    throw new CliError(CliErrorCode.SIGN_IN, `the server refused the credentials: ${state.message}`);
  }
  if (state.kind === 'offline') {
    throw new CliError(CliErrorCode.UNREACHABLE, `the server cannot be reached: ${state.message}`);
  }
  if (state.kind === 'server-full') {
    throw new CliError(
      CliErrorCode.SERVER_FULL,
      `the server cannot store rides now: ${state.message}; the rides wait in the inbox for the next sync`,
    );
  }
  if (state.kind === 'disk-full') {
    throw new CliError(
      CliErrorCode.DISK_FULL,
      `rides cannot be collected or recorded now: ${state.message}; nothing failed, sync again once there is space`,
    );
  }
  if (run.synced + run.failed === 0) await checkCredentials(client);
  const problems: [CliErrorCode, string][] = [];
  if (run.failed > 0) {
    problems.push([
      CliErrorCode.RIDES_FAILED,
      `${plural(run.failed, 'ride')} failed (the lines above say why); --retry-failed uploads them again`,
    ]);
  }
  if (notUploaded > 0) {
    problems.push([
      CliErrorCode.NOT_UPLOADED,
      `${plural(notUploaded, 'ride')} not uploaded yet; they wait in the inbox for the next sync`,
    ]);
  }
  if (counts.waiting > 0) problems.push([CliErrorCode.NOT_COMPLETE, notCompleteWords(status)]);
  for (const [code, message] of problems) io.stderr.write(failureLine('sync', code, message));
  return problems.length > 0 ? ExitCode.FAILED : ExitCode.OK;
}

/** Which files wait and why (the first three), and when the last of them is taken as it is. */
function notCompleteWords(status: SyncStatus): string {
  const files = status.waitingFiles;
  const latest = files.reduce((last, file) => (file.takenBy > last ? file.takenBy : last), '');
  const named = files.slice(0, 3).map((file) => `${file.relativePath}: ${file.reason}`);
  if (status.counts.waiting > named.length) named.push('…');
  const when = latest === '' ? '' : ` after ${clockTime(latest)}`;
  return `${plural(status.counts.waiting, 'file')} not complete yet, so not uploaded (${named.join('; ')}); a file that stays as it is is taken as it is after 2 minutes: sync again${when}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Asks the server who the credentials are, turning a refusal or no answer into the error line. */
async function checkCredentials(client: RideportClient): Promise<void> {
  try {
    await client.legacy.currentUser();
  } catch (error) {
    if (isClientError(error, ClientErrorCode.UNAUTHORIZED)) {
      throw new CliError(CliErrorCode.SIGN_IN, `the server refused the credentials: ${error.message}`);
    }
    if (isClientError(error, ClientErrorCode.UNREACHABLE)) {
      throw new CliError(CliErrorCode.UNREACHABLE, `the server cannot be reached: ${error.message}`);
    }
    throw new OperationError('sync', error);
  }
}
