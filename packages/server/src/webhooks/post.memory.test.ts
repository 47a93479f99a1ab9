/**
 * Issue 22: a webhook delivery leaves nothing behind on the dispatcher's stop signal, which lives as
 * long as the server. In Node 20, AbortSignal.any made from it left a reference on it for every
 * delivery, for good. Thousands of posts to a real HTTP server on a socket; bytes of heap after a
 * forced collection are compared; nothing is timed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { retainedHeapBytes } from '../../../../test/support/heap.js';
import { WebhookPoster } from './post.js';

let receiver: Server;
let url: string;

beforeAll(async () => {
  receiver = createServer((_request, response) => {
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

it('keeps nothing on the server-long stop signal per delivery (issue 22)', async () => {
  const poster = new WebhookPoster({ allowPrivateTargets: true, requestTimeoutMs: 5_000, resolveHost: null });
  const serverLifetime = new AbortController();
  const body = Buffer.from('{"notifications":[]}');
  const post = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const result = await poster.post(
        url,
        body,
        { 'content-type': 'application/json' },
        serverLifetime.signal,
      );
      expect(result.ok).toBe(true);
    }
  };
  try {
    await post(3_000);
    const before = await retainedHeapBytes();
    const posts = 40_000;
    await post(posts);
    const bytesPerPost = ((await retainedHeapBytes()) - before) / posts;
    // Before: about 40 to 60 bytes per delivery; what is left now is noise of ±20.
    expect(bytesPerPost, `${bytesPerPost.toFixed(1)} bytes kept per delivery`).toBeLessThan(25);
  } finally {
    await poster.close();
  }
}, 120_000);
