/**
 * Connections an attacker cannot exhaust (issue 17: "about 20,000 idle slow-header connections from one
 * client fill the process's file descriptors, and every other request then fails at once, for 60 s per
 * wave"). Node bounds how long a request's header and body may take (set from ConnectionLimits where
 * the app is built, app.ts); this module bounds how many connections are open:
 *
 * - at most `maxConnections` in all. At the limit a new connection takes the place of the oldest one
 *   that has no request in progress (a header still coming in, or a keep-alive connection waiting),
 *   so slow or idle connections can never keep out a client that sends its request at once; when
 *   every connection has a request in progress, the new one is closed.
 * - at most `perAddress` from one client address (client-address.ts), when the server listens beyond
 *   loopback. On loopback every client has the same address (the desktop's own browser and sync engine,
 *   or a reverse proxy on the same host), so there a per-address limit would only be a second, smaller
 *   total; it applies there only when `perAddressOnLoopback` asks for it.
 *
 * A refused connection is closed at once, before a byte is read, which frees its file descriptor; the
 * log says when connections are refused or made to give way, at most once a minute.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { clientAddress, isLoopbackAddress } from './client-address.js';
import type { ConnectionLimits } from './ports/connection-limits.js';

/** How often the log may say that connections were closed, ms. */
const LOG_INTERVAL_MS = 60_000;

interface Tracked {
  address: string;
  /** requests of this connection whose answer is not finished */
  inProgress: number;
}

export function limitConnections(server: Server, limits: ConnectionLimits, log: FastifyBaseLogger): void {
  const tracked = new Map<Socket, Tracked>();
  /** connections with no request in progress, oldest first (a Set keeps insertion order) */
  const waiting = new Set<Socket>();
  const perAddress = new Map<string, number>();
  let perAddressLimit: number | null = null;
  let lastLogMs = -Infinity;

  server.on('listening', () => {
    const bound = server.address();
    const loopback = typeof bound === 'object' && bound !== null && isLoopbackAddress(bound.address);
    perAddressLimit = loopback && !limits.perAddressOnLoopback ? null : limits.perAddress;
  });

  const untrack = (socket: Socket): void => {
    const connection = tracked.get(socket);
    if (connection === undefined) return;
    tracked.delete(socket);
    waiting.delete(socket);
    const count = (perAddress.get(connection.address) ?? 1) - 1;
    if (count === 0) perAddress.delete(connection.address);
    else perAddress.set(connection.address, count);
  };

  /** Closes `socket` at once, and says why in the log at most once a minute. */
  const close = (socket: Socket, why: string): void => {
    socket.destroy();
    const now = Date.now();
    if (now - lastLogMs >= LOG_INTERVAL_MS) {
      lastLogMs = now;
      log.warn({ remoteAddress: socket.remoteAddress }, `${why} (said at most once a minute)`);
    }
  };

  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket.remoteAddress ?? '');
    const fromAddress = perAddress.get(address) ?? 0;
    if (perAddressLimit !== null && fromAddress >= perAddressLimit) {
      close(socket, `connection refused: ${perAddressLimit} connections from ${address} are open already`);
      return;
    }
    if (tracked.size >= limits.maxConnections) {
      const [oldestWaiting] = waiting;
      if (oldestWaiting === undefined) {
        close(
          socket,
          `connection refused: ${limits.maxConnections} connections are open, each with a request in progress`,
        );
        return;
      }
      untrack(oldestWaiting);
      close(
        oldestWaiting,
        `${limits.maxConnections} connections are open: the oldest without a request in progress make way for new ones`,
      );
    }
    tracked.set(socket, { address, inProgress: 0 });
    waiting.add(socket);
    perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      untrack(socket);
    });
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const connection = tracked.get(socket);
    if (connection === undefined) return;
    connection.inProgress += 1;
    waiting.delete(socket);
    response.once('close', () => {
      connection.inProgress -= 1;
      // Waiting again, now as the newest: a connection that just answered is the last to make way.
      if (connection.inProgress === 0 && tracked.has(socket)) waiting.add(socket);
    });
  });
}
