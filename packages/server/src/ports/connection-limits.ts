/**
 * How many connections the server keeps open and how long a request may take (issue 17): the limits a
 * host passes to buildServer and the connection guard (connection-limits.ts) enforces, in a file of
 * their own (issue 35) so that the options and the guard both depend on it and not on each other.
 */
import { readFileSync } from 'node:fs';

/**
 * Connections and how long a request may take (issue 17; connection-limits.ts; docs/operators/limits.md).
 * Node's own defaults (60 s for a header, 5 minutes for a request, no limit on connections) let one
 * client hold every file descriptor of the process with connections that never finish their header.
 */
export interface ConnectionLimits {
  /** a request's header must have arrived this long after the connection opened or the last answer, ms */
  headerTimeoutMs: number;
  /** a whole request, header and body, must have arrived within this, ms (≥ headerTimeoutMs) */
  requestTimeoutMs: number;
  /** a keep-alive connection with no request is closed after this, ms */
  keepAliveTimeoutMs: number;
  /** a connection on which nothing is sent or received this long is closed, ms (a client stops reading) */
  idleTimeoutMs: number;
  /** connections open at once; at the limit the oldest one with no request in progress makes way */
  maxConnections: number;
  /** connections from one client address (IPv4, or IPv6 /64); null: no such limit */
  perAddress: number | null;
  /**
   * whether `perAddress` applies also when the server listens on loopback only, where every client has
   * the same address (the desktop, or a reverse proxy on the same host); off by default
   */
  perAddressOnLoopback: boolean;
}

/**
 * The soft limit on open files of this process (Node raises it to the hard limit when it starts), or
 * undefined where the system does not say (only Linux has /proc/self/limits).
 */
export function openFileLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}
