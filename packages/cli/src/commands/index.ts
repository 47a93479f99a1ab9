/** The commands `rideport` offers, in the order `rideport --help` lists them. */
import type { Command } from './command.js';
import { adminCommand } from './admin.js';
import { convertCommand } from './convert.js';
import { inspectCommand } from './inspect.js';
import { serveCommand } from './serve.js';

export type { Command } from './command.js';

export const COMMANDS: readonly Command[] = [convertCommand, inspectCommand, serveCommand, adminCommand];
