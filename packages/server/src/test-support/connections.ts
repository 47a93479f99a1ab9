/**
 * Client connections for the tests of issue 17's limits: a second loopback address to stand for
 * another client, and connections that open and then send half a request header, never the rest.
 */
import { connect, createServer, type Socket } from 'node:net';

/** Another address of this host's loopback: Linux routes all of 127/8 there; macOS only 127.0.0.1. */
export const OTHER_LOOPBACK = '127.0.0.2';

/** Whether a socket can be bound to `address` on this host. */
export async function canBind(address: string): Promise<boolean> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: address, port: 0 }, resolve);
    });
    return true;
  } catch {
    return false;
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}

export interface SlowConnection {
  socket: Socket;
  /** what the server sent before closing (a 408 when the header took too long) */
  received: () => string;
  /** resolves when the connection is closed, by either side */
  closed: Promise<void>;
  isClosed: () => boolean;
}

/** A connection from `localAddress` that sends the start of a request header, and then nothing. */
export function slowHeaderConnection(port: number, localAddress = '127.0.0.1'): Promise<SlowConnection> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let received = '';
    let isClosed = false;
    const closed = new Promise<void>((done) => {
      socket.once('close', () => {
        isClosed = true;
        done();
      });
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // A refused or reset connection is what the limits do; it is seen as closed.
    socket.on('error', () => undefined);
    const connection = { socket, received: () => received, closed, isClosed: () => isClosed };
    socket.once('connect', () => {
      socket.write('GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      resolve(connection);
    });
    socket.once('close', () => {
      resolve(connection);
    });
  });
}

/** `count` slow connections, opened `batch` at a time (so the listen backlog does not overflow). */
export async function slowHeaderConnections(
  port: number,
  count: number,
  localAddress = '127.0.0.1',
  batch = 100,
): Promise<SlowConnection[]> {
  const all: SlowConnection[] = [];
  for (let opened = 0; opened < count; opened += batch) {
    const size = Math.min(batch, count - opened);
    all.push(
      ...(await Promise.all(Array.from({ length: size }, () => slowHeaderConnection(port, localAddress)))),
    );
  }
  return all;
}
