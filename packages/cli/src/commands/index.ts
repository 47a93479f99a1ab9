/**
 * The commands `rideport` offers, in the order `rideport --help` lists them: each one's table (its
 * synopsis, words and options, options.ts) and the module that runs it, loaded only when it runs
 * (issue 35): `rideport convert`, `inspect` and `sync` never load the server, and `--help` loads no
 * command at all.
 */
import type { CliIo } from '../io.js';
import type { CommandSpec } from '../options.js';
import { adminSpec } from './admin-options.js';
import { convertSpec } from './convert-options.js';
import { inspectSpec } from './inspect-options.js';
import { serveSpec } from './serve-options.js';
import { syncSpec } from './sync-options.js';
import { upSpec } from './up-options.js';
import { workerSpec } from './worker-options.js';

/** What a command module exports: its run, with the arguments after the command name. */
export interface CommandModule {
  run(args: string[], io: CliIo): Promise<number>;
}

export interface Command extends CommandSpec {
  load(): Promise<CommandModule>;
}

export const COMMANDS: readonly Command[] = [
  { ...upSpec, load: () => import('./up.js') },
  { ...syncSpec, load: () => import('./sync.js') },
  { ...convertSpec, load: () => import('./convert.js') },
  { ...inspectSpec, load: () => import('./inspect.js') },
  { ...serveSpec, load: () => import('./serve.js') },
  { ...workerSpec, load: () => import('./worker.js') },
  { ...adminSpec, load: () => import('./admin.js') },
];
