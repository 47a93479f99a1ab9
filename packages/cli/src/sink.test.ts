import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamSink, writeChunks } from './sink.js';

describe('streamSink', () => {
  it('waits for drain when the stream is full, and loses nothing', async () => {
    const received: string[] = [];
    let fullWrites = 0;
    const slow = new Writable({
      highWaterMark: 8,
      decodeStrings: false,
      write(chunk: string, _encoding, callback): void {
        received.push(chunk);
        setImmediate(callback);
      },
    });
    const stream = {
      write(chunk: string): boolean {
        const more = slow.write(chunk);
        if (!more) fullWrites++;
        return more;
      },
      once(event: 'drain', listener: () => void): void {
        slow.once(event, listener);
      },
    };
    const chunks = Array.from({ length: 50 }, (_, i) => `chunk ${i};`);
    await writeChunks(streamSink(stream), chunks);
    await new Promise<void>((resolve) => slow.end(resolve));
    expect(fullWrites).toBeGreaterThan(0);
    expect(received.join('')).toBe(chunks.join(''));
  });
});
