/**
 * `rideport sync [<folder>...] --server <url> --api-key <key> (--auth-token <t> | --email <e>
 * --password <p>) [--once]` (design.md; issue 6): the sync engine, headless, against any server that
 * speaks the API. Without folders it syncs the GPS devices it detects.
 */
import { RideportClient, type Credentials } from '@rideport/client';
import {
  currentUser,
  defaultMountRoots,
  renewCredentialsWhenRefused,
  SyncEngine,
  syncFolders,
  type SyncStatus,
} from '@rideport/sync';
import { parseCommandArgs } from '../args.js';
import { dataDirectory } from '../data-directory.js';
import { CliError, CliErrorCode, OperationError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import type { CliIo } from '../io.js';
import { announce, type LogFormat, logFormatOption, untilStopSignal } from '../server-host.js';
import { reportSync } from '../sync-report.js';
import { answerImportQuestions, importWindowOption } from '../sync-host.js';
import type { Command } from './command.js';

const help = `Usage: rideport sync [<folder>...] --server <url> --api-key <key> (--auth-token <t> | --email <e> --password <p>) [--once]

Copies every new, complete ride file from the folders (or, without folders, from the GPS devices
plugged in) and uploads it to the server, exactly once: a ledger in the data directory remembers what
was synced, so rescans, restarts and re-plugged devices upload nothing twice.

Options:
  --server <url>        the platform server, e.g. http://127.0.0.1:4242
  --api-key <key>       the API client's key
  --auth-token <t>      an auth token of the account to upload as, or:
  --email <e>           sign in with email and password (signs in again when the token expires)
  --password <p>
  --once                one pass: upload what is there, then exit (status 1 if anything failed)
  --import <window>     how far back the first sync of a new folder or device goes:
                        all, new (nothing before now) or <N>d (the last N days); asked on a terminal
  --devices             also sync detected GPS devices when folders are given
  --retry-failed        upload again the rides the server rejected before
  --data <dir>          data directory for the ledger and inbox (default: the per-user data directory)
  --log-format <f>      text (default) or json
  -h, --help            show this help
`;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('sync', args, {
    server: { type: 'string' },
    'api-key': { type: 'string' },
    'auth-token': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    once: { type: 'boolean' },
    import: { type: 'string' },
    devices: { type: 'boolean' },
    'retry-failed': { type: 'boolean' },
    data: { type: 'string' },
    'log-format': { type: 'string', default: 'text' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(help);
    return ExitCode.OK;
  }
  const server = values.server;
  if (server === undefined || !/^https?:\/\/[^/]/.test(server) || !URL.canParse(server)) {
    throw new UsageError('sync: --server must be the http or https URL of the server');
  }
  const apiKey = values['api-key'];
  if (apiKey === undefined || apiKey === '') throw new UsageError('sync: --api-key is required');
  const login =
    values.email !== undefined || values.password !== undefined
      ? { email: values.email ?? '', password: values.password ?? '' }
      : null;
  if ((login === null) === (values['auth-token'] === undefined)) {
    throw new UsageError('sync: give either --auth-token or --email and --password');
  }
  if (login !== null && (login.email === '' || login.password === '')) {
    throw new UsageError('sync: --email and --password go together');
  }
  const logFormat = logFormatOption(values['log-format'], 'sync');
  const firstImport = importWindowOption(values.import, 'sync');
  const credentials: Credentials =
    login === null
      ? { kind: 'auth-token', apiKey, authToken: values['auth-token']! }
      : { kind: 'api-key', apiKey };
  const client = new RideportClient({ baseUrl: server, credentials });
  try {
    if (login !== null) await signIn(client, login);
    const folders = syncFolders(dataDirectory(values.data, io.cwd), server);
    const withDevices = positionals.length === 0 || values.devices === true;
    const engine = new SyncEngine({
      ...folders,
      uploader: client,
      folders: positionals.map((folder) => folder),
      deviceRoots: withDevices ? defaultMountRoots(process.platform, currentUser()) : [],
      ...(firstImport === undefined ? {} : { firstImport }),
    });
    try {
      await answerImportQuestions(engine, io, 'sync');
      if (values['retry-failed'] === true) engine.retryFailed();
      const report = reportSync(engine, io, logFormat);
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
        if (values.once === true) return finishOnce(await engine.syncOnce(), io, logFormat);
        engine.start();
        announce(io, logFormat, `syncing to ${server}; stop with Ctrl-C`, { server });
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

async function signIn(client: RideportClient, login: { email: string; password: string }): Promise<void> {
  try {
    await client.legacy.login(login.email, login.password);
  } catch (error) {
    throw new OperationError('sync: sign-in', error);
  }
}

function finishOnce(status: SyncStatus, io: CliIo, logFormat: LogFormat): number {
  const { counts, state } = status;
  announce(
    io,
    logFormat,
    `${counts.synced} synced, ${counts.failed} failed, ${counts.queued + counts.uploading} not uploaded yet, ${counts.waiting} incomplete`,
    { event: 'summary', counts },
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
  return counts.failed > 0 || counts.queued + counts.uploading > 0 ? ExitCode.FAILED : ExitCode.OK;
}

export const syncCommand: Command = {
  name: 'sync',
  synopsis:
    '[<folder>...] --server <url> --api-key <k> (--auth-token <t> | --email <e> --password <p>) [--once]',
  summary: 'sync ride files from folders or GPS devices to a server, exactly once',
  help,
  run,
};
