/**
 * Memory of one large upload (`npm run bench:upload-memory`, issue 18, "Upload bytes": "a 64 MB upload
 * must not cost more than about three times its size in one process").
 *
 * A server process (bench/api-server.js on a SQLite file, and on a throwaway PostgreSQL database when
 * PostgreSQL is installed) receives one upload of nearly 64 MB, the most it accepts, through
 * POST /trips.json. The file's bytes are random, so the parser refuses it at once: what is measured is
 * the upload's own path (receiving, hashing, storing the bytes, claiming the task, reading them back
 * for the parse worker, ending the task), not the parser's work on a huge ride. The peak resident memory
 * of the server (VmHWM, reset through /proc/<pid>/clear_refs before the upload) is printed above the
 * resident memory just before it, as a multiple of the upload's size, at two moments: when the upload
 * is answered (the bytes are stored) and when its task has ended. Three uploads in a row, each on a
 * fresh peak. On PostgreSQL also a `rideport worker` process (bench/api-server.js worker) reading the
 * bytes back from the database for a server that reads none. Linux only; elsewhere it says so and
 * exits 0.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createBenchAccount } from './account.js';
import { startBenchPostgres } from './databases.js';
import { startServer } from './server-process.js';
import { formatTable } from './table.js';
import { resetPeak, status } from './proc-memory.js';

const MB = 1024 * 1024;
/** the server's default upload limit is 64 MB; the multipart envelope takes the rest */
const UPLOAD_BYTES = 64 * MB - 4096;
const UPLOADS = 3;

if (!existsSync('/proc/self/status')) {
  console.log('bench:upload-memory reads /proc: Linux only. Nothing measured.');
  process.exit(0);
}

const agent = new Agent({ connections: 1, bodyTimeout: 120_000, headersTimeout: 120_000 });
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

async function uploadOnce(url: string, query: string, bytes: Buffer): Promise<number> {
  const boundary = `----rideport-bench-${Math.random().toString(16).slice(2)}`;
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="large.fit"\r\ncontent-type: application/octet-stream\r\n\r\n`;
  const response = await request(`${url}/trips.json?${query}`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    dispatcher: agent,
  });
  const answer = (await response.body.json()) as { task_id?: number; error?: string };
  if (answer.task_id === undefined)
    throw new Error(`upload refused: ${response.statusCode} ${answer.error ?? ''}`);
  return answer.task_id;
}

async function untilEnded(url: string, query: string, id: number): Promise<string> {
  for (;;) {
    const response = await request(`${url}/queued_tasks/status.json?${query}&ids=${id}`, {
      dispatcher: agent,
    });
    const [task] = ((await response.body.json()) as { queued_tasks: { status: number; message: string }[] })
      .queued_tasks;
    if (task !== undefined && task.status !== 0) return task.message;
    await sleep(20);
  }
}

interface Row {
  engine: string;
  upload: number;
  baseline: number;
  stored: number;
  ended: number;
  message: string;
}

/**
 * The peak above its memory before each upload of the process that reads the uploads: the server, or
 * with `worker`, on PostgreSQL, the other way to run: a server that reads no uploads (`serve
 * --no-workers`) and a worker process (`rideport worker`) that reads each upload's bytes back from
 * the database.
 */
async function measure(engine: string, location: string, worker = false): Promise<Row[]> {
  const account = await createBenchAccount(location);
  const query = new URLSearchParams({ apikey: account.apiKey, auth_token: account.authToken }).toString();
  const server = await startServer([worker ? 'api-no-workers' : 'api', location, 'http://127.0.0.1']);
  const reader = worker ? await startServer(['worker', location]) : server;
  const rows: Row[] = [];
  try {
    for (let upload = 1; upload <= UPLOADS; upload += 1) {
      const bytes = randomBytes(UPLOAD_BYTES);
      await sleep(worker ? 1500 : 500);
      const baseline = status(reader.pid, 'VmRSS');
      resetPeak(reader.pid);
      const id = await uploadOnce(server.url, query, bytes);
      const stored = worker ? Number.NaN : status(server.pid, 'VmHWM');
      const message = await untilEnded(server.url, query, id);
      rows.push({ engine, upload, baseline, stored, ended: status(reader.pid, 'VmHWM'), message });
    }
  } finally {
    await server.stop();
    if (reader !== server) await reader.stop();
  }
  return rows;
}

const folder = mkdtempSync(join(tmpdir(), 'rideport-bench-upload-memory-'));
const rows: Row[] = [];
try {
  rows.push(...(await measure('SQLite', join(folder, 'rideport.sqlite'))));
  const postgres = await startBenchPostgres();
  if ('skipped' in postgres) console.log(`PostgreSQL: ${postgres.skipped}; measured on SQLite only.`);
  else {
    try {
      rows.push(...(await measure('PostgreSQL', await postgres.newDatabase())));
      rows.push(...(await measure('PostgreSQL, rideport worker', await postgres.newDatabase(), true)));
    } finally {
      postgres.stop();
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
  await agent.close();
}

const size = UPLOAD_BYTES / MB;
console.log(
  `\nOne upload of ${size.toFixed(1)} MB (random bytes, refused by the parser), peak resident memory of the server process above its memory just before the upload:\n`,
);
console.log(
  formatTable(
    ['database', 'upload', 'before, MB', 'peak when stored', '÷ size', 'peak when ended', '÷ size'],
    rows.map((row) => [
      row.engine,
      String(row.upload),
      row.baseline.toFixed(1),
      Number.isNaN(row.stored) ? '(no server)' : `+${(row.stored - row.baseline).toFixed(1)} MB`,
      Number.isNaN(row.stored) ? '' : `${((row.stored - row.baseline) / size).toFixed(2)}×`,
      `+${(row.ended - row.baseline).toFixed(1)} MB`,
      `${((row.ended - row.baseline) / size).toFixed(2)}×`,
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  ),
);
console.log(
  `\nTarget (issue 18): about 3× the upload's size at most. The task ended: "${rows[0]?.message ?? ''}"`,
);
