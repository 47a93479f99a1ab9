/**
 * Issue 35: `curl -F file=@ride.fit -F apikey=… -F auth_token=…`, the credentials after the file part,
 * was answered "the apikey parameter is required". The credentials are read before the file, so that
 * no unauthenticated upload is ever held (upload-intake.ts); credentials found only after the file
 * are refused with a 400 that names them and the fix, and nothing is stored. Over a real socket with
 * real multipart bodies, in both orders.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/support/corpus.js';
import { DEFAULT_LIMITS } from '../options.js';
import { legacySetup, type LegacySetup } from '../test-support/legacy.js';
import { testServer, type TestServer } from '../test-support/server.js';

const UPLOAD_LIMIT = 256 * 1024;

let server: TestServer;
let origin: string;
let setup: LegacySetup;
const ride = readFixture('gpx', 'sample-ride.gpx');

beforeAll(async () => {
  server = await testServer({ limits: { ...DEFAULT_LIMITS, uploadBytes: UPLOAD_LIMIT } });
  origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  setup = await legacySetup(server);
});
afterAll(async () => {
  await server.close();
});

type Part = [name: string, value: string] | ['file', Uint8Array];

/** A multipart/form-data body of `parts` in their order, as curl -F sends it. */
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = '------------------------rideport35';
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    const file = typeof value !== 'string';
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? '; filename="ride.gpx"\r\nContent-Type: application/octet-stream' : ''}\r\n\r\n`,
      ),
      Buffer.from(value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(parts: Part[], query = ''): Promise<{ status: number; json: Record<string, unknown> }> {
  const { body, contentType } = multipart(parts);
  const response = await request(`${origin}/trips.json${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

const credentials = (): Part[] => [
  ['apikey', setup.apiKey],
  ['auth_token', setup.alice.authToken],
];

describe('POST /trips.json: the form fields in either order (issue 35)', () => {
  it('takes the credentials before the file, and stores nothing when they come only after it', async () => {
    const before = await upload([...credentials(), ['file', ride], ['trip[name]', 'Before']]);
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ success: 1 });
    const first = before.json['task_id'] as number;

    const after = await upload([['file', ride], ...credentials()]);
    expect(after).toEqual({
      status: 400,
      json: {
        error:
          'apikey and auth_token came after the file: send them before the file part, in the query string or in headers; with curl, put -F apikey=… -F auth_token=… before -F file=@…',
      },
    });

    // Nothing was stored: the next upload's task is the one after the first.
    const next = await upload([...credentials(), ['file', ride]]);
    expect(next.status).toBe(200);
    expect(next.json['task_id']).toBe(first + 1);
  });

  it('names only what came late: the key in the query string, the token after the file', async () => {
    const query = `?apikey=${encodeURIComponent(setup.apiKey)}`;
    const after = await upload(
      [
        ['file', ride],
        ['auth_token', setup.alice.authToken],
      ],
      query,
    );
    expect(after.status).toBe(400);
    expect(after.json['error']).toBe(
      'auth_token came after the file: send it before the file part, in the query string or in headers; with curl, put -F auth_token=… before -F file=@…',
    );
    const headers = await upload(
      [
        ['file', ride],
        ['trip[name]', 'Late name'],
      ],
      query,
    );
    expect(headers.status).toBe(401);
  });

  it('email and password after the file are named too', async () => {
    const after = await upload([
      ['apikey', setup.apiKey],
      ['file', ride],
      ['email', 'alice@example.com'],
      ['password', 'whatever it is'],
    ]);
    expect(after.status).toBe(400);
    expect(after.json['error']).toMatch(
      /^email and password came after the file: send them before the file part/,
    );
  });

  it('without credentials anywhere, the usual 401', async () => {
    const none = await upload([
      ['file', ride],
      ['trip[name]', 'No one'],
    ]);
    expect(none).toEqual({ status: 401, json: { error: 'the apikey parameter is required' } });
  });

  it('a file past the upload limit before late credentials is refused as too large, holding nothing', async () => {
    const big = new Uint8Array(UPLOAD_LIMIT + 1024).fill(0x20);
    const after = await upload([['file', big], ...credentials()]);
    expect(after.status).toBe(413);
  });
});
