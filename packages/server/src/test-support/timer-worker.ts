/**
 * A worker thread's module for thread-pool.test.ts: each task sets a timer and returns at once; the
 * timer, when it fires, says so on the broadcast channel the task names.
 */
import { BroadcastChannel } from 'node:worker_threads';

export function setTimerAndReturn({ channel, ms }: { channel: string; ms: number }): string {
  setTimeout(() => {
    const out = new BroadcastChannel(channel);
    out.postMessage('fired');
    out.close();
  }, ms);
  return 'returned';
}
