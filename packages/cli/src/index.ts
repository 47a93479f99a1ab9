export { main } from './main.js';
export type { CliIo, CliWritable } from './io.js';
export { CliErrorCode } from './errors.js';
export { ExitCode } from './exit-code.js';
