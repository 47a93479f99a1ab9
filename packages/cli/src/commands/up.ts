/**
 * `rideport up [--watch <folder>...] [--host] [--port] [--data <dir>]` (docs/contributors/architecture.md: "local server +
 * sync engine + dashboard, the everyday command"; issue 6): the platform server on the embedded
 * database, a local account created on first run, and the sync engine on detected GPS devices and the
 * watched folders, uploading to that server; its status is served at /api/v1/local/sync/status.json
 * and on the dashboard's sync page; it prints a one-time link that opens the dashboard signed in (issue 7).
 */
import { join } from 'node:path';
import { startLocalPlatform, type LocalPlatform } from '@rideport/host';
import { LOCAL_ACCOUNT_FILE } from '@rideport/server';
import { currentUser, defaultMountRoots, folderSourceId } from '@rideport/sync';
import { announce, announceStartUp, type LogFormat, logFormatOption, untilStopSignal } from '../announce.js';
import { parseCommandArgs } from '../args.js';
import { connectionLimitsOption } from '../connection-flags.js';
import { dataDirectory, desktopAppDataDirectory } from '../data-directory.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { rideportCommand } from '../follow-up.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import { parseConfigOf } from '../options.js';
import { commandClaimant, portOption, serverLogger } from '../server-host.js';
import { reportSync } from '../sync-report.js';
import { importWindowOption } from '../sync-host.js';
import { CONNECTION_OPTIONS } from './shared-options.js';
import { UP_OPTIONS } from './up-options.js';

export async function run(args: string[], commandIo: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'up',
    args,
    parseConfigOf([...UP_OPTIONS, ...CONNECTION_OPTIONS]),
  );
  // From here on, `up` keeps running: its output must never stop it (issue 17, log-destination.ts).
  const io = withLogDestination(commandIo);
  if (positionals.length > 0)
    throw new UsageError(`up: unexpected argument '${positionals[0]!}' (folders go after --watch)`);
  const port = portOption(values.port, 'up');
  const logFormat = logFormatOption(values['log-format'], 'up');
  const connections = connectionLimitsOption(values, 'up');
  // `up` runs unattended (at login, from the desktop app): without an answer it imports everything,
  // which loses nothing; duplicates are recognised by the server.
  const firstImport = importWindowOption(values.import, 'up') ?? { kind: 'all' };
  const directory = dataDirectory(values.data, io.cwd);
  const stopped = untilStopSignal();
  let platform: LocalPlatform;
  try {
    platform = await startLocalPlatform({
      dataDirectory: directory,
      claimant: commandClaimant('up'),
      host: values.host,
      port,
      folders: values.watch ?? [],
      deviceRoots: values['no-devices'] === true ? [] : defaultMountRoots(process.platform, currentUser()),
      firstImport,
      logger: serverLogger(logFormat, io.stdout),
      connections,
    });
  } catch (error) {
    throw new OperationError('up', error);
  }
  try {
    const { account, engine } = platform;
    // Issue 35: a follow-up command as the rider can run it where they are (follow-up.ts).
    const rideport = rideportCommand({ env: io.env ?? {}, program: io.program });
    announceStartUp(io, logFormat, `Rideport is listening on ${platform.url}`, {
      url: platform.url,
      data: directory,
    });
    // Issue 20: where everything is, and the desktop app's folder beside it (they are not the same).
    const appDirectory = desktopAppDataDirectory();
    announceStartUp(
      io,
      logFormat,
      sameFolderName(directory, appDirectory)
        ? `Data: ${directory} (the desktop app's folder: run only one of them at a time)`
        : `Data: ${directory} (database, sync ledger and inbox, local account); the desktop app keeps its own in ${appDirectory}: \`${rideport} up --data ${JSON.stringify(appDirectory)}\` runs on that one instead`,
      { data: directory, desktopAppData: appDirectory },
    );
    if (platform.newPassword !== null) {
      announceStartUp(
        io,
        logFormat,
        `Created the local account ${account.email} with the password ${platform.newPassword} (shown only now)`,
        { email: account.email },
      );
    }
    apiAccess(io, logFormat, platform, directory);
    // How the admin commands reach this directory (issue 20): nothing to add for the default one.
    const dataOption = values.data === undefined ? '' : ` --data ${JSON.stringify(directory)}`;
    // The dashboard, signed in (issue 7): a one-time link, so that a click opens it without a password.
    const dashboardLink = await platform.signInLink('/dashboard');
    announceStartUp(io, logFormat, `Dashboard: ${dashboardLink}`, { dashboard: dashboardLink });
    announceStartUp(
      io,
      logFormat,
      `The link above signs you in and works once, for 2 minutes; after that, \`${rideport} admin sign-in-link${dataOption}\` makes a new one, or open ${platform.url}/dashboard and sign in as ${account.email} (lost the password? \`${rideport} admin set-password${dataOption}\`)`,
      { url: `${platform.url}/dashboard` },
    );
    const report = reportSync(engine, io, logFormat);
    platform.startSyncing();
    // A --watch folder removed on the sync page stays removed (issue 19): said, so its absence is explained.
    const removed = new Set(engine.removedSources().map((source) => source.id));
    const watched = (values.watch ?? []).filter((folder) => !removed.has(folderSourceId(folder)));
    announceStartUp(io, logFormat, describeSources(watched, values['no-devices'] !== true), {
      event: 'sync-started',
    });
    for (const folder of (values.watch ?? []).filter((each) => removed.has(folderSourceId(each)))) {
      announceStartUp(
        io,
        logFormat,
        `sync: not watching ${folder}: it was removed on the dashboard's sync page; add it again there`,
        { event: 'folder-removed', folder },
      );
    }
    const signal = await stopped;
    announce(io, logFormat, `${signal}: stopping`, { signal });
    report.stop();
    return ExitCode.OK;
  } finally {
    await platform.stop();
  }
}

/**
 * Where the local account's API key and auth token are, and a first call that works (issue 35: `up`
 * printed them nowhere, so a first API call was answered 401). The API key is printed: it names the
 * API client and grants nothing without a user's credentials. The auth token is not: it is the
 * account's, as good as its password while it lasts, and a log is read by others and kept; the
 * example reads it from the file (readable by its owner alone) when it runs, so it keeps working
 * after `up` replaces a token that stopped working.
 */
function apiAccess(io: CliIo, logFormat: LogFormat, platform: LocalPlatform, directory: string): void {
  const file = join(directory, LOCAL_ACCOUNT_FILE);
  const example = [
    `  token=$(node -p 'require(process.argv[1]).authToken' ${shellQuoted(file)})`,
    `  curl -H "x-service-api-key: ${platform.account.apiKey}" -H "x-service-auth-token: $token" ${platform.url}/api/v1/trips.json`,
  ].join('\n');
  announceStartUp(
    io,
    logFormat,
    `API: the key ${platform.account.apiKey}, and the local account's auth token in ${file} (yours alone: keep the token secret, like a password). A first call, in a POSIX shell:\n${example}`,
    { apiKey: platform.account.apiKey, accountFile: file },
  );
}

/** `path` as one word of a POSIX shell, whatever it holds. */
function shellQuoted(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** macOS's and Windows' usual disks ignore case: `rideport` and `Rideport` are one folder there. */
function sameFolderName(a: string, b: string): boolean {
  return process.platform === 'linux' ? a === b : a.toLowerCase() === b.toLowerCase();
}

function describeSources(folders: string[], devices: boolean): string {
  const parts = [
    ...(devices ? ['GPS devices as they are plugged in'] : []),
    ...folders.map((folder) => folder),
  ];
  return parts.length === 0 ? 'sync: no sources (add --watch <folder>)' : `syncing ${parts.join(', ')}`;
}
