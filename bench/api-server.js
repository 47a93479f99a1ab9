// A server for bench/api.ts in a process of its own, so that the server and the load generator
// (autocannon, in the parent) each have a core and neither is charged for the other's work:
//   node bench/api-server.js hello                       a bare Fastify app: GET /hello → {"hello":"world"}
//   node bench/api-server.js bytes <file>                a bare Fastify app: GET /page → the file's bytes
//   node bench/api-server.js api <database> <base url>   buildServer() from @rideport/server's build
// Listens on 127.0.0.1 on a free port and prints one JSON line, {"port": N}; stops on SIGTERM.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import Fastify from 'fastify';
import { buildServer } from '@rideport/server';

const [mode, databasePath, baseUrl] = process.argv.slice(2);

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
  if (mode === 'api' && databasePath !== undefined && baseUrl !== undefined) {
    return buildServer({ databasePath, baseUrl });
  }
  throw new Error('usage: api-server.js hello | bytes <file> | api <database> <base url>');
}

const app = await build();
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : null })}\n`,
);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
