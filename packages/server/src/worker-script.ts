/**
 * Where a worker thread's module is (the upload queue's parsers, queue/pool.ts; the database's
 * checkpointer, db/checkpointer.ts). Built, it is the .js file beside the module asking. Run from the
 * TypeScript sources (vitest, tsx), the worker is TypeScript too: it is loaded through tsx, with
 * @rideport/ridefile from its sources as the parent thread has it (the `@rideport/source` condition).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** `name`: the module's file name without extension; `from`: the asking module's import.meta.url. */
export function workerScript(name: string, from: string): { filename: string; execArgv?: string[] } {
  if (from.endsWith('.js')) return { filename: new URL(`./${name}.js`, from).href };
  const tsx = pathToFileURL(createRequire(from).resolve('tsx')).href;
  return {
    filename: new URL(`./${name}.ts`, from).href,
    execArgv: ['--import', tsx, '--conditions=@rideport/source'],
  };
}
