/**
 * The pages are compressed when the browser asks (issue 40, "pages compressed when the client asks"),
 * over a real socket: a long ride's page in each encoding a browser offers, the same HTML once
 * decompressed; the API's answers as they always were; a client that asks for nothing gets plain bytes.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { trackFromPoints } from '@rideport/ridefile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  createPerson,
  credentialsFor,
  testServer,
  type Credentials,
  type TestServer,
} from '@rideport/server/test-support';
import { dashboardPages } from './index.js';

let server: TestServer;
let origin: string;
let cookie: string;
let credentials: Credentials;
let rideId: number;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(`${origin}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) });
      });
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  deflate: inflateSync,
};

beforeAll(async () => {
  server = await testServer({ pages: [dashboardPages] });
  const rider = await createPerson(server, 'Compressed');
  credentials = await credentialsFor(server, rider);
  const start = Date.parse('2025-06-01T06:00:00Z') / 1000;
  const points = Array.from({ length: 3 * 3600 }, (_, i) => ({
    x: 7.44 + i * 1e-4,
    y: 46.95 + Math.sin(i / 50) * 0.001,
    e: 540 + Math.sin(i / 30) * 20,
    t: start + i,
    h: 120 + (i % 40),
    p: 150 + (i % 90),
  }));
  rideId = (
    await server.store.assets.createFromTrack(rider.id, trackFromPoints(points, { sport: 'cycling' }))
  ).row.id;
  const browser = new Browser(server.app);
  expect((await browser.signIn(rider.email, rider.password)).statusCode).toBe(303);
  cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server.close();
});

describe('page compression', () => {
  it('sends a long ride’s page in the encoding the browser asks for, the same HTML decompressed', async () => {
    const plain = await get(`/dashboard/rides/${rideId}`, { cookie });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(200_000);
    for (const encoding of ['br', 'gzip', 'deflate']) {
      const answer = await get(`/dashboard/rides/${rideId}`, { cookie, 'accept-encoding': encoding });
      expect(answer.status, encoding).toBe(200);
      expect(answer.headers['content-encoding'], encoding).toBe(encoding);
      expect(answer.headers['vary'], encoding).toMatch(/accept-encoding/i);
      const decoded = DECODE[encoding]!(answer.body);
      // The page carries a CSRF token per answer: compare the rest.
      const withoutTokens = (html: string): string => html.replace(/value="[^"]{20,}"/g, 'value=""');
      expect(withoutTokens(decoded.toString('utf8'))).toBe(withoutTokens(plain.body.toString('utf8')));
      expect(answer.body.length, encoding).toBeLessThan(plain.body.length / 3);
    }
  });

  it('prefers what the browser prefers, as Chromium asks', async () => {
    const answer = await get(`/dashboard/rides/${rideId}`, {
      cookie,
      'accept-encoding': 'gzip, deflate, br, zstd',
    });
    expect(['br', 'gzip']).toContain(answer.headers['content-encoding']);
  });

  it('compresses the downloads of text formats, and the scripts', async () => {
    const gpx = await get(`/dashboard/rides/${rideId}/download.gpx`, { cookie, 'accept-encoding': 'gzip' });
    expect(gpx.status).toBe(200);
    expect(gpx.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gpx.body).toString('utf8')).toContain('<gpx');
    const script = await get('/dashboard/sync/live.js', { cookie, 'accept-encoding': 'gzip' });
    expect(script.status).toBe(200);
    expect(script.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(script.body).toString('utf8')).toContain('Rideport: live sync status');
  });

  it('leaves the API’s answers as they were', async () => {
    const answer = await get('/api/v1/trips.json', {
      authorization: credentials.basic,
      'accept-encoding': 'gzip, br',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(answer.body.toString('utf8'))).toHaveProperty('trips');
  });
});
