/**
 * `rideport up [--watch <folder>...] [--host] [--port] [--data <dir>]` (docs/contributors/architecture.md: "local server +
 * sync engine + dashboard, the everyday command"; issue 6): the platform server on the embedded
 * database, a local account created on first run, and the sync engine on detected GPS devices and the
 * watched folders, uploading to that server; its status is served at /api/v1/local/sync/status.json
 * and on the dashboard's sync page; it prints a one-time link that opens the dashboard signed in (issue 7).
 */
import { startLocalPlatform, type LocalPlatform } from '@rideport/host';
import { currentUser, defaultMountRoots, folderSourceId } from '@rideport/sync';
import { parseCommandArgs } from '../args.js';
import { CONNECTION_FLAGS, CONNECTION_FLAGS_HELP, connectionLimitsOption } from '../connection-flags.js';
import { dataDirectory, desktopAppDataDirectory } from '../data-directory.js';
import { OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { withLogDestination } from '../log-destination.js';
import {
  announce,
  commandClaimant,
  logFormatOption,
  portOption,
  serverLogger,
  untilStopSignal,
} from '../server-host.js';
import { reportSync } from '../sync-report.js';
import { importWindowOption } from '../sync-host.js';
import type { Command } from './command.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './serve.js';

const help = `Usage: rideport up [--watch <folder>...] [--host ${DEFAULT_HOST}] [--port ${DEFAULT_PORT}] [--data <dir>] [--import all|new|<N>d] [connection limits]

The everyday command: the local platform server on an embedded SQLite database, a local account
(created on first run; its password is printed once), and the sync engine, which uploads every new
ride from the GPS devices it detects and from the watched folders to that server, exactly once.
Webhooks may go to this computer and private networks (127.0.0.1, 192.168.x.x, …), as a local setup
wants. Runs until SIGINT or SIGTERM. One server runs on a data directory at a time (this, \`rideport serve\` or
the desktop app): a second one exits with status 1 and says which process holds it.

Options:
  --watch <folder>      a folder to sync as well (repeat for more)
  --import <window>     how far back the first sync of a new folder or device goes: all (default),
                        new (nothing before now) or <N>d (the last N days)
  --no-devices          do not look for GPS devices, only the watched folders
  --host <host>         address to listen on (default ${DEFAULT_HOST})
  --port <port>         port to listen on; 0 picks a free one (default ${DEFAULT_PORT})
  --data <dir>          data directory (default: the per-user data directory, printed at start;
                        the desktop app's folder is another one, see the README)
  --log-format <f>      text (default) or json
  -h, --help            show this help

Connection limits:
${CONNECTION_FLAGS_HELP}`;

async function run(args: string[], commandIo: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('up', args, {
    watch: { type: 'string', multiple: true },
    import: { type: 'string' },
    'no-devices': { type: 'boolean' },
    host: { type: 'string', default: DEFAULT_HOST },
    port: { type: 'string', default: String(DEFAULT_PORT) },
    data: { type: 'string' },
    'log-format': { type: 'string', default: 'text' },
    help: { type: 'boolean', short: 'h' },
    ...CONNECTION_FLAGS,
  });
  if (values.help === true) {
    commandIo.stdout.write(help);
    return ExitCode.OK;
  }
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
    announce(io, logFormat, `Rideport is listening on ${platform.url}`, {
      url: platform.url,
      data: directory,
    });
    // Issue 20: where everything is, and the desktop app's folder beside it (they are not the same).
    const appDirectory = desktopAppDataDirectory();
    announce(
      io,
      logFormat,
      sameFolderName(directory, appDirectory)
        ? `Data: ${directory} (the desktop app's folder: run only one of them at a time)`
        : `Data: ${directory} (database, sync ledger and inbox, local account); the desktop app keeps its own in ${appDirectory}: \`rideport up --data ${JSON.stringify(appDirectory)}\` runs on that one instead`,
      { data: directory, desktopAppData: appDirectory },
    );
    if (platform.newPassword !== null) {
      announce(
        io,
        logFormat,
        `Created the local account ${account.email} with the password ${platform.newPassword} (shown only now)`,
        { email: account.email },
      );
    }
    // How the admin commands reach this directory (issue 20): nothing to add for the default one.
    const dataOption = values.data === undefined ? '' : ` --data ${JSON.stringify(directory)}`;
    // The dashboard, signed in (issue 7): a one-time link, so that a click opens it without a password.
    const dashboardLink = await platform.signInLink('/dashboard');
    announce(io, logFormat, `Dashboard: ${dashboardLink}`, { dashboard: dashboardLink });
    announce(
      io,
      logFormat,
      `The link above signs you in and works once, for 2 minutes; after that, \`rideport admin sign-in-link${dataOption}\` makes a new one, or open ${platform.url}/dashboard and sign in as ${account.email} (lost the password? \`rideport admin set-password${dataOption}\`)`,
      { url: `${platform.url}/dashboard` },
    );
    const report = reportSync(engine, io, logFormat);
    platform.startSyncing();
    // A --watch folder removed on the sync page stays removed (issue 19): said, so its absence is explained.
    const removed = new Set(engine.removedSources().map((source) => source.id));
    const watched = (values.watch ?? []).filter((folder) => !removed.has(folderSourceId(folder)));
    announce(io, logFormat, describeSources(watched, values['no-devices'] !== true), {
      event: 'sync-started',
    });
    for (const folder of (values.watch ?? []).filter((each) => removed.has(folderSourceId(each)))) {
      announce(
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

export const upCommand: Command = {
  name: 'up',
  runsUntilStopped: true,
  synopsis: '[--watch <folder>...] [--host <h>] [--port <p>] [--data <dir>]',
  summary: 'the local server, a local account and the sync engine: the everyday command',
  help,
  run,
};
