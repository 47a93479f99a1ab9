/**
 * A process that claims data directories when told to (issue 17, one server per data directory), for
 * tests that need another process on a directory: the desktop app's tests, and the race of several
 * processes claiming one directory at the same instant, which it can run round after round without
 * paying a process start each time. Reads one JSON request a line on stdin and answers each with one
 * JSON line on stdout:
 *
 *   {"claim": "<directory>", "command": "<words>"} → {"claimed": true} | {"refused": {"code", "message"}}
 *   {"listen": true} → {"url": "<where the server on the claimed directory listens>"}
 *   {"claim": …, "command": …, "listen": true} → both at once: {"claimed": true, "url": …} | {"refused": …}
 *   {"release": true} → {"released": true}   (closes the server, if any, and gives the directory up)
 *
 * Runs from the TypeScript sources:
 *
 *   node --import tsx --conditions=@rideport/source claim-process.ts
 */
import process from 'node:process';
import { createInterface } from 'node:readline';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../app.js';
import { claimDataDirectory, type DataDirectoryLock } from '../data-directory/claim.js';
import { DataDirectoryError } from '../errors.js';
import { databasePathIn } from '../platform.js';

interface Request {
  claim?: string;
  command?: string;
  listen?: boolean;
  release?: boolean;
}

let lock: DataDirectoryLock | null = null;
let app: FastifyInstance | null = null;

async function answer(request: Request): Promise<unknown> {
  if (request.claim !== undefined) {
    try {
      lock = await claimDataDirectory(request.claim, {
        command: request.command ?? 'a test process',
        howToStop: `run \`kill ${process.pid}\``,
      });
    } catch (error) {
      if (!(error instanceof DataDirectoryError)) throw error;
      return { refused: { code: error.code, message: error.message } };
    }
    return request.listen === true ? { claimed: true, url: await listen(lock) } : { claimed: true };
  }
  if (request.listen === true) {
    if (lock === null) throw new Error('listen before a claim');
    return { url: await listen(lock) };
  }
  if (request.release === true) {
    await app?.close();
    app = null;
    await lock?.release();
    lock = null;
    return { released: true };
  }
  throw new Error(`unknown request ${JSON.stringify(request)}`);
}

async function listen(claimed: DataDirectoryLock): Promise<string> {
  app = await buildServer({ databasePath: databasePathIn(claimed.directory), baseUrl: 'http://127.0.0.1' });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  await claimed.listening(url);
  return url;
}

for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${JSON.stringify(await answer(JSON.parse(line) as Request))}\n`);
}
