import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError, ClientErrorCode } from './errors.js';
import {
  injectTransport,
  normalizeHeaders,
  transportError,
  undiciTransport,
  type InjectRequest,
  type TransportRequest,
} from './transport.js';

const GET: TransportRequest = { method: 'GET', url: 'http://x.test/a.json?auth_token=secret', headers: {} };

describe('injectTransport', () => {
  it('passes path, query, headers and bytes to inject, and normalises the answer', async () => {
    const seen: InjectRequest[] = [];
    const transport = injectTransport((request) => {
      seen.push(request);
      return Promise.resolve({
        statusCode: 201,
        headers: {
          'Content-Type': 'application/json',
          'set-cookie': ['a=1', 'b=2'],
          'content-length': 2,
          gone: undefined,
        },
        rawPayload: Buffer.from('{}'),
      });
    });
    const response = await transport.request({
      method: 'POST',
      url: 'http://rideport.test/trips.json?apikey=k',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([1, 2, 3]).subarray(1),
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/trips.json?apikey=k' });
    expect(Buffer.isBuffer(seen[0]!.payload)).toBe(true);
    expect([...(seen[0]!.payload as Buffer)]).toEqual([2, 3]);
    expect(response).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json', 'set-cookie': 'a=1, b=2', 'content-length': '2' },
      body: new Uint8Array(Buffer.from('{}')),
    });
  });

  it('reports a throwing inject as UNREACHABLE and an abort as ABORTED', async () => {
    const failing = injectTransport(() => Promise.reject(new Error('app closed')));
    await expect(failing.request(GET)).rejects.toMatchObject({ code: ClientErrorCode.UNREACHABLE });
    const hanging = injectTransport(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = hanging.request({ ...GET, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: ClientErrorCode.ABORTED });
  });
});

describe('transportError', () => {
  it('sorts network failures into UNREACHABLE, TIMEOUT and ABORTED, and hides the query', () => {
    const of = (code: string) => transportError(Object.assign(new Error(code), { code }), GET);
    expect(of('ECONNREFUSED').code).toBe(ClientErrorCode.UNREACHABLE);
    expect(of('ECONNRESET').code).toBe(ClientErrorCode.UNREACHABLE);
    expect(of('UND_ERR_SOCKET').code).toBe(ClientErrorCode.UNREACHABLE);
    expect(of('UND_ERR_HEADERS_TIMEOUT').code).toBe(ClientErrorCode.TIMEOUT);
    expect(of('UND_ERR_BODY_TIMEOUT').code).toBe(ClientErrorCode.TIMEOUT);
    expect(of('UND_ERR_CONNECT_TIMEOUT').code).toBe(ClientErrorCode.TIMEOUT);
    expect(of('ECONNRESET').message).not.toContain('secret');
    const controller = new AbortController();
    controller.abort();
    expect(transportError(new Error('x'), { ...GET, signal: controller.signal }).code).toBe(
      ClientErrorCode.ABORTED,
    );
    const own = new ClientError(ClientErrorCode.SERVER, 'kept');
    expect(transportError(own, GET)).toBe(own);
  });

  it('normalizeHeaders lower-cases names and joins repeats', () => {
    expect(normalizeHeaders({ 'Retry-After': '3', Vary: ['a', 'b'], skip: undefined })).toEqual({
      'retry-after': '3',
      vary: 'a, b',
    });
  });
});

describe('undiciTransport', () => {
  let server: Server;
  let port: number;
  const sockets = new Set<string>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      sockets.add(`${request.socket.remotePort}`);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.setHeader('X-Echo-Length', String(Buffer.concat(chunks).length));
        response.setHeader('Content-Type', 'application/json');
        response.end(
          JSON.stringify({ method: request.method, url: request.url, ua: request.headers['user-agent'] }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends over a kept-alive socket and answers status, lower-case headers and bytes', async () => {
    const transport = undiciTransport({ connections: 1 });
    try {
      for (let i = 0; i < 3; i += 1) {
        const response = await transport.request({
          method: 'POST',
          url: `http://127.0.0.1:${port}/trips.json?x=${i}`,
          headers: { 'user-agent': 'test/1' },
          body: new Uint8Array([1, 2, 3, 4]),
        });
        expect(response.status).toBe(200);
        expect(response.headers['x-echo-length']).toBe('4');
        expect(JSON.parse(Buffer.from(response.body).toString())).toEqual({
          method: 'POST',
          url: `/trips.json?x=${i}`,
          ua: 'test/1',
        });
      }
      expect(sockets.size).toBe(1);
    } finally {
      await transport.close();
    }
  });

  it('reports a refused connection as UNREACHABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const transport = undiciTransport();
    try {
      await expect(
        transport.request({ method: 'GET', url: `http://127.0.0.1:${closedPort}/x.json`, headers: {} }),
      ).rejects.toMatchObject({ code: ClientErrorCode.UNREACHABLE });
    } finally {
      await transport.close();
    }
  });
});
