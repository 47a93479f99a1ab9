/**
 * Issue 17: "About 20,000 idle slow-header connections from one client fill the process's file
 * descriptors, and every other request then fails at once, for 60 s per wave." The real server on a
 * real loopback socket: a connection whose header never ends is closed after the header timeout with a
 * 408, and thousands of such connections from one address (bounded in count; closed at the end of each
 * test) never keep a normal request on another connection from its answer. The same with the defaults
 * and the process's file limit lowered: packages/cli/src/connection-limits.test.ts.
 */
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionLimits } from './ports/connection-limits.js';
import {
  canBind,
  OTHER_LOOPBACK,
  slowHeaderConnection,
  slowHeaderConnections,
  type SlowConnection,
} from './test-support/connections.js';
import { testServer, type TestServer } from './test-support/server.js';

const SLOW_CONNECTIONS = 2000;
const otherLoopback = await canBind(OTHER_LOOPBACK);

let server: TestServer;
const opened: SlowConnection[] = [];

async function listening(connections: Partial<ConnectionLimits>): Promise<number> {
  server = await testServer({ connections });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const address = server.app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the server has no port');
  return address.port;
}

afterEach(async () => {
  for (const connection of opened.splice(0)) connection.socket.destroy();
  await server.close();
});

/** A normal request on a connection of its own, from `localAddress`. */
async function normalRequest(port: number, localAddress = '127.0.0.1'): Promise<number> {
  const agent = new Agent({ localAddress });
  try {
    const response = await request(`http://127.0.0.1:${port}/api/v1/openapi.json`, { dispatcher: agent });
    await response.body.dump();
    return response.statusCode;
  } finally {
    await agent.close();
  }
}

const stillOpen = (): number => opened.filter((connection) => !connection.isClosed()).length;

/** Waits until the server has taken every connection in and closed what it closes. */
async function openConnectionsSettleAt(expected: (open: number) => void): Promise<void> {
  await vi.waitFor(
    () => {
      expected(stillOpen());
    },
    { timeout: 20_000, interval: 100 },
  );
}

describe('connection limits of the real server', () => {
  it('closes a connection whose header does not end within the header timeout, with a 408', async () => {
    const port = await listening({ headerTimeoutMs: 1000 });
    const openedAt = Date.now();
    const slow = await slowHeaderConnection(port);
    opened.push(slow);
    expect(await normalRequest(port)).toBe(200);
    expect(slow.isClosed()).toBe(false);
    await slow.closed;
    // Not before the timeout; a sleeping test would learn nothing from an upper bound.
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(950);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  }, 15_000);

  it('keeps a normal request answered while thousands of slow connections come from one address', async () => {
    const port = await listening({ maxConnections: 200 });
    // A request whose header arrived and whose body is still coming is not pushed out by newcomers.
    const uploading = connect({ host: '127.0.0.1', port });
    uploading.on('error', () => undefined);
    await new Promise((resolve) => uploading.once('connect', resolve));
    uploading.write(
      'POST /trips.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    opened.push(...(await slowHeaderConnections(port, SLOW_CONNECTIONS)));
    expect(await normalRequest(port)).toBe(200);
    await openConnectionsSettleAt((open) => {
      // The upload's connection is one of the 200.
      expect(open).toBeLessThanOrEqual(199);
    });
    expect(stillOpen()).toBeGreaterThan(0);
    expect(uploading.destroyed).toBe(false);
    uploading.destroy();
  }, 60_000);

  it.skipIf(!otherLoopback)(
    otherLoopback
      ? 'refuses connections past the limit of one address; other addresses are served'
      : `refuses connections past the limit of one address: skipped, ${OTHER_LOOPBACK} is no loopback address here`,
    async () => {
      const port = await listening({ perAddress: 50, perAddressOnLoopback: true });
      opened.push(...(await slowHeaderConnections(port, SLOW_CONNECTIONS, OTHER_LOOPBACK)));
      await openConnectionsSettleAt((open) => {
        expect(open).toBe(50);
      });
      expect(await normalRequest(port, '127.0.0.1')).toBe(200);
      // The address at its limit gets no new connection served.
      const more = await slowHeaderConnection(port, OTHER_LOOPBACK);
      opened.push(more);
      await more.closed;
      expect(more.received()).toBe('');
    },
    60_000,
  );

  it('has no per-address limit on loopback unless asked, but keeps the total', async () => {
    const port = await listening({ perAddress: 50, maxConnections: 300 });
    opened.push(...(await slowHeaderConnections(port, 500)));
    await openConnectionsSettleAt((open) => {
      expect(open).toBe(300);
    });
  }, 60_000);
});
