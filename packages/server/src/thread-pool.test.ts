/**
 * A pool's idle thread runs its timers (issue 36): the collection after a large task is such a timer
 * (heap-collection.ts), and with piscina's default way of waiting it never fired.
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { threadPool } from './thread-pool.js';
import { workerScript } from './worker-script.js';

const pools: { destroy(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.destroy()));
});

/** Whether a message comes on `channel` within `ms`. */
function heardWithin(channel: string, ms: number): Promise<boolean> {
  const listener = new BroadcastChannel(channel);
  return new Promise<boolean>((resolve) => {
    const timeout = setTimeout(() => {
      resolve(false);
    }, ms);
    listener.onmessage = () => {
      clearTimeout(timeout);
      resolve(true);
    };
  }).finally(() => {
    listener.close();
  });
}

describe('threadPool', () => {
  it("runs a thread's timer after its task has ended, while no other task comes", async () => {
    const pool = threadPool<{ channel: string; ms: number }, string>({
      ...workerScript('test-support/timer-worker', new URL('./', import.meta.url).href),
      name: 'setTimerAndReturn',
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
    pools.push(pool);
    const channel = randomUUID();
    const heard = heardWithin(channel, 5_000);
    expect(await pool.run({ channel, ms: 50 })).toBe('returned');
    expect(await heard).toBe(true);
  }, 30_000);
});
