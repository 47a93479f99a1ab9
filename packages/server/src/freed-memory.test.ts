/**
 * malloc_trim through koffi (freed-memory.ts, issue 22): on Linux with glibc, memory freed below blocks
 * still in use stays resident until it is trimmed, and trimming gives most of it back. Elsewhere there is
 * no malloc_trim and nothing is done; that test says that it skipped.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  limitAllocatorArenas,
  MAX_ALLOCATOR_ARENAS,
  mallocTrim,
  returnFreedMemoryPeriodically,
} from './freed-memory.js';

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

describe('the arenas capped', () => {
  it('sets M_ARENA_MAX to two, unless the user set it', () => {
    const calls: [number, number][] = [];
    const mallopt = (param: number, value: number): number => calls.push([param, value]) && 1;
    expect(limitAllocatorArenas(MAX_ALLOCATOR_ARENAS, {}, { mallopt })).toBe(true);
    expect(calls).toEqual([[-8, 2]]);
    expect(limitAllocatorArenas(2, { MALLOC_ARENA_MAX: '4' }, { mallopt })).toBe(false);
    expect(limitAllocatorArenas(2, { GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' }, { mallopt })).toBe(false);
    expect(limitAllocatorArenas(2, {}, null)).toBe(false);
    expect(calls).toHaveLength(1);
  });

  // In a process of its own, as the launcher does it: after the cap, threads that allocate at the same
  // time (worker threads building objects and Buffers) make no arena of their own.
  it.skipIf(trim === null)(
    'keeps threads started afterwards from making arenas of their own (glibc)',
    async () => {
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      const module = new URL('./freed-memory.ts', import.meta.url).href;
      const script = `const { limitAllocatorArenas } = await import(${JSON.stringify(module)});
const { readFileSync } = await import('node:fs');
const { Worker } = await import('node:worker_threads');
const arenas = () => readFileSync('/proc/self/smaps', 'utf8').split('\\n').filter((line) => {
  const m = /^([0-9a-f]+)-([0-9a-f]+) \\S+ \\S+ \\S+ \\S+\\s*$/.exec(line);
  return m !== null && parseInt(m[1], 16) % 2 ** 26 === 0 && parseInt(m[2], 16) - parseInt(m[1], 16) <= 2 ** 26;
}).length;
const capped = process.argv.includes('cap') && limitAllocatorArenas();
const before = arenas();
const work = 'const a = []; for (let i = 0; i < 300000; i++) a.push({ i, b: Buffer.alloc(64, i) }); a.length;';
await Promise.all(Array.from({ length: 6 }, () => new Promise((done) => new Worker(work, { eval: true }).on('exit', done))));
console.log(JSON.stringify({ capped, before, after: arenas() }));`;
      const run = async (cap: boolean): Promise<{ capped: boolean; before: number; after: number }> => {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          ['--import', tsx, '--input-type=module', '-e', script, ...(cap ? ['cap'] : [])],
          { env: { ...process.env, NODE_OPTIONS: '', MALLOC_ARENA_MAX: undefined } },
        );
        return JSON.parse(stdout) as { capped: boolean; before: number; after: number };
      };
      const [capped, free] = await Promise.all([run(true), run(false)]);
      expect(capped.capped).toBe(true);
      expect(capped.after).toBe(capped.before);
      // Without the cap the same threads do make arenas: the test would see it if the cap did nothing.
      expect(free.after).toBeGreaterThan(free.before);
    },
    60_000,
  );
});
