/** The commands `rideport` offers, in the order `rideport --help` lists them. */
import type { Command } from './command.js';
import { convertCommand } from './convert.js';
import { inspectCommand } from './inspect.js';

export type { Command } from './command.js';

export const COMMANDS: readonly Command[] = [convertCommand, inspectCommand];
