/**
 * malloc_trim through koffi (freed-memory.ts, issue 22): on Linux with glibc, memory freed below blocks
 * still in use stays resident until it is trimmed, and trimming gives most of it back. Elsewhere there is
 * no malloc_trim and nothing is done; that test says that it skipped.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { mallocTrim, returnFreedMemoryPeriodically } from './freed-memory.js';

const trim = mallocTrim();
if (trim === null) console.warn(`freed memory: SKIPPED, no glibc malloc_trim on ${process.platform}`);

/** Resident memory, bytes. */
const rss = (): number =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

/** A full collection, through the flag that exposes it (set here, read when a context is made). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let round = 0; round < 3; round++) gc();
}

describe.skipIf(trim === null)('freed memory given back (glibc)', () => {
  it('gives back memory freed below blocks still in use, which glibc keeps otherwise', () => {
    // 64 MB in 64-KB blocks from C's malloc (Buffer.allocUnsafeSlow, below glibc's mmap threshold), of
    // which every 16th stays allocated: the freed blocks lie below blocks in use, so free() cannot
    // give them back, as with V8's helpers' working memory between the blocks a process keeps.
    trim!(0);
    const blocks = Array.from({ length: 1024 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
    const kept = blocks.filter((_, index) => index % 16 === 0);
    blocks.length = 0;
    collectGarbage();
    const freed = rss();
    expect(trim!(0)).toBe(1);
    const after = rss();
    expect(kept.every((block) => block[0] === 1)).toBe(true);
    // 60 of the 64 MB were freed and stayed resident until trimmed.
    expect(freed - after).toBeGreaterThan(40 * 1024 * 1024);
  });
});

describe('trimming on a timer', () => {
  it('calls malloc_trim(0) every interval until stopped', async () => {
    const pads: number[] = [];
    const stop = returnFreedMemoryPeriodically(5, (pad) => pads.push(pad));
    await new Promise((resolve) => setTimeout(resolve, 60));
    stop();
    const calls = pads.length;
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(new Set(pads)).toEqual(new Set([0]));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(pads).toHaveLength(calls);
  });

  it('does nothing without malloc_trim', () => {
    expect(returnFreedMemoryPeriodically(5, null)).toBeTypeOf('function');
  });
});
