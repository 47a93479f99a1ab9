/** The commands `rideport` offers, in the order `rideport --help` lists them. */
import type { Command } from './command.js';
import { adminCommand } from './admin.js';
import { convertCommand } from './convert.js';
import { inspectCommand } from './inspect.js';
import { serveCommand } from './serve.js';
import { syncCommand } from './sync.js';
import { upCommand } from './up.js';
import { workerCommand } from './worker.js';

export type { Command } from './command.js';

export const COMMANDS: readonly Command[] = [
  upCommand,
  syncCommand,
  convertCommand,
  inspectCommand,
  serveCommand,
  workerCommand,
  adminCommand,
];
