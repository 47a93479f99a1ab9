// A server for bench/api.ts in a process of its own, so that the server and the load generator
// (autocannon, in the parent) each have a core and neither is charged for the other's work:
//   node bench/api-server.js hello                       a bare Fastify app: GET /hello → {"hello":"world"}
//   node bench/api-server.js bytes <file>                a bare Fastify app: GET /page → the file's bytes
//   node bench/api-server.js api <database> <base url>   buildServer() from @rideport/server's build, on
//                                                        a SQLite file or a postgres:// URL (the master
//                                                        key from RIDEPORT_MASTER_KEY: bench/databases.ts)
//   node bench/api-server.js api-no-workers <postgres url> <base url>
//                                                        the same, reading no uploads (serve --no-workers)
//   node bench/api-server.js worker <postgres url>       the upload queue alone (rideport worker), with
//                                                        one parse worker; prints {"port": 0}
//   node bench/api-server.js upload-reference            the physical bound of bench/upload (below)
// Listens on 127.0.0.1 on a free port and prints one JSON line, {"port": N}; stops on SIGTERM.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import { buildServer, keepYoungGenerationSmall, startUploadWorker } from '@rideport/server';
/* global AbortController -- Node has it; this config declares no globals for .js files */
// Not part of the package's interface: the upload queue's own worker pool, for the reference below.
import { createParsePool } from '../packages/server/dist/queue/pool.js';

const [mode, databasePath, baseUrl] = process.argv.slice(2);
// As `rideport serve` and `rideport worker` do (issue 22); NODE_OPTIONS=--max-semi-space-size=16
// gives Node's default instead, for a comparison.
if (mode === 'api' || mode === 'api-no-workers' || mode === 'worker') keepYoungGenerationSmall();

async function build() {
  if (mode === 'hello') {
    const app = Fastify({ logger: false });
    app.get('/hello', () => ({ hello: 'world' }));
    return app;
  }
  if (mode === 'bytes' && databasePath !== undefined) {
    const page = readFileSync(databasePath);
    const app = Fastify({ logger: false });
    app.get('/page', (_request, reply) => reply.type('application/json; charset=utf-8').send(page));
    return app;
  }
  if (mode === 'upload-reference') return uploadReference();
  if ((mode === 'api' || mode === 'api-no-workers') && databasePath !== undefined && baseUrl !== undefined) {
    return buildServer({
      baseUrl,
      ...databaseOf(databasePath),
      ...(mode === 'api-no-workers' ? { queue: { workers: 0 } } : {}),
    });
  }
  throw new Error(
    'usage: api-server.js hello | bytes <file> | api[-no-workers] <database> <base url> | worker <database> | upload-reference',
  );
}

function databaseOf(location) {
  const onPostgres = location.startsWith('postgres://');
  return {
    databasePath: onPostgres ? '' : location,
    ...(onPostgres
      ? { databaseUrl: location, masterKey: Buffer.from(process.env.RIDEPORT_MASTER_KEY ?? '', 'base64') }
      : {}),
  };
}

/**
 * What any server must do for bench/upload, and no more: receive the multipart upload, hash it, answer
 * a task id, parse the file (and pack its points) in the upload queue's worker pool, and answer
 * status.json from memory. No database, no credentials, no durability: the least work the same uploads
 * can cost on this machine, so the distance to it is what our server adds.
 */
async function uploadReference() {
  const app = Fastify({ logger: false });
  await app.register(multipart, { limits: { fileSize: 64 * 1024 * 1024 } });
  const pool = createParsePool(availableParallelism());
  const never = new AbortController().signal;
  const tasks = new Map();
  app.post('/trips.json', async (request) => {
    const file = await request.file();
    const bytes = await file.toBuffer();
    createHash('sha256').update(bytes).digest('hex');
    const id = tasks.size + 1;
    tasks.set(id, { id, status: 0, response_code: 'queued', message: '' });
    const parse = { bytes, filename: file.filename, maxBytes: 256 * 1024 * 1024, maxPoints: 1_000_000 };
    void pool.parse(parse, never).then((outcome) => {
      tasks.set(id, {
        id,
        status: outcome.ok ? 1 : -1,
        response_code: outcome.ok ? 'success' : 'failed',
        message: '',
      });
    });
    return { success: 1, task_id: id };
  });
  app.get('/queued_tasks/status.json', (request) => ({
    queued_tasks: String(request.query.ids)
      .split(',')
      .flatMap((id) => tasks.get(Number(id)) ?? []),
  }));
  app.addHook('onClose', () => pool.destroy());
  return app;
}

async function serve() {
  const app = await build();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : null })}\n`,
  );
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

if (mode === 'worker' && databasePath !== undefined) {
  const worker = await startUploadWorker({ ...databaseOf(databasePath), queue: { workers: 1 } });
  process.stdout.write(`${JSON.stringify({ port: 0 })}\n`);
  process.once('SIGTERM', () => {
    void worker.close().then(() => process.exit(0));
  });
} else {
  await serve();
}
