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
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import {
  LARGE_BLOCK_BYTES,
  limitAllocatorArenas,
  mapLargeBlocksApart,
  MAX_ALLOCATOR_ARENAS,
  mallocTrim,
  collectWhenGrown,
  returnFreedMemoryPeriodically,
  v8FullCollection,
} from './freed-memory.js';

const trim = mallocTrim();
if (trim === null) console.warn(`freed memory: SKIPPED, no glibc malloc_trim on ${process.platform}`);

/** Resident memory, bytes. */
const rss = (): number =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

/** Full collections, by the module's own means (which leave --expose-gc unset again). */
async function collectGarbage(): Promise<void> {
  const collect = v8FullCollection();
  expect(collect).not.toBeNull();
  for (let round = 0; round < 3; round++) await collect!();
}

describe.skipIf(trim === null)('freed memory given back (glibc)', () => {
  it('gives back memory freed below blocks still in use, which glibc keeps otherwise', async () => {
    // 64 MB in 64-KB blocks from C's malloc (Buffer.allocUnsafeSlow, below glibc's mmap threshold), of
    // which every 16th stays allocated: the freed blocks lie below blocks in use, so free() cannot
    // give them back, as with V8's helpers' working memory between the blocks a process keeps.
    trim!(0);
    const blocks = Array.from({ length: 1024 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1));
    const kept = blocks.filter((_, index) => index % 16 === 0);
    blocks.length = 0;
    await collectGarbage();
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
    const stop = returnFreedMemoryPeriodically(5, (pad) => pads.push(pad), null);
    // Waited for, not timed: on a busy machine 60 ms may hold only two of the 5-ms ticks.
    await vi.waitFor(
      () => {
        expect(pads.length).toBeGreaterThanOrEqual(3);
      },
      { timeout: 5000 },
    );
    stop();
    const calls = pads.length;
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(new Set(pads)).toEqual(new Set([0]));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(pads).toHaveLength(calls);
  });

  it('does nothing without malloc_trim and a collection', () => {
    expect(returnFreedMemoryPeriodically(5, null, null)).toBeTypeOf('function');
  });

  it("collects V8's heap first, then trims, a round at a time", async () => {
    const said: string[] = [];
    let rounds = 0;
    const collect = async (): Promise<void> => {
      const round = ++rounds;
      said.push(`collect ${round}`);
      // Slower than the interval: no round starts before the one before has ended.
      await new Promise((resolve) => setTimeout(resolve, 15));
      said.push(`collected ${round}`);
    };
    const stop = returnFreedMemoryPeriodically(2, () => said.push('trim') && 1, collect);
    await vi.waitFor(
      () => {
        expect(rounds).toBeGreaterThanOrEqual(2);
      },
      { timeout: 5000 },
    );
    stop();
    // A round under way when stopped still ends with its trim; none starts after.
    await vi.waitFor(
      () => {
        expect(said.at(-1)).toBe('trim');
      },
      { timeout: 5000 },
    );
    const ended = said.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(said).toHaveLength(ended);
    const expected = Array.from({ length: rounds }, (_, i) => [
      `collect ${i + 1}`,
      `collected ${i + 1}`,
      'trim',
    ]);
    expect(said).toEqual(expected.flat());
  });
});

describe("V8's full collection", () => {
  it('is asked for only once the heap has grown by more than the allowance since the last one', async () => {
    let heap = 100;
    let collections = 0;
    const collect = collectWhenGrown(
      () => {
        collections += 1;
        heap = 101; // what is live, and a little
        return Promise.resolve();
      },
      10,
      () => heap,
    );
    const sizes = [105, 110, 111, 104, 111, 112, 200];
    const seen: number[] = [];
    for (const size of sizes) {
      heap = size;
      await collect();
      seen.push(collections);
    }
    // 110 is within 10 of 100; 111 is not; then measured from 101: 111 is within, 112 and 200 are not.
    expect(seen).toEqual([0, 0, 1, 1, 1, 2, 3]);
  });

  it('frees what nothing refers to any more, without the process being started with --expose-gc', async () => {
    const collect = v8FullCollection();
    expect(collect).not.toBeNull();
    // Made in a function of its own, so that nothing on this stack still holds the object.
    const weak = ((): WeakRef<object> => new WeakRef({ ride: new Array(1000).fill(1) }))();
    await new Promise((resolve) => setImmediate(resolve));
    await collect!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(weak.deref()).toBeUndefined();
    // The flag was unset again: contexts made afterwards have no gc of their own.
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});

/**
 * Runs `body` in a Node process of its own, with this module as `host` and glibc as `libc` (koffi), and
 * `unset` left out of its environment: what it wrote.
 */
function inOwnProcess(
  body: string,
  args: string[],
  unset: string,
): Promise<{ stdout: string; stderr: string }> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const module = JSON.stringify(new URL('./freed-memory.ts', import.meta.url).href);
  const script = `const host = await import(${module});
const { createRequire } = await import('node:module');
const libc = createRequire(${module})('koffi').load('libc.so.6');
${body}`;
  return promisify(execFile)(
    process.execPath,
    ['--import', tsx, '--input-type=module', '-e', script, ...args],
    {
      env: { ...process.env, NODE_OPTIONS: '', [unset]: undefined },
    },
  );
}

describe('large blocks mapped apart (issue 36)', () => {
  it('sets M_MMAP_THRESHOLD to 256 KiB, unless the user set it', () => {
    const calls: [number, number][] = [];
    const mallopt = (param: number, value: number): number => calls.push([param, value]) && 1;
    expect(mapLargeBlocksApart(LARGE_BLOCK_BYTES, {}, { mallopt })).toBe(true);
    expect(calls).toEqual([[-3, 256 * 1024]]);
    expect(mapLargeBlocksApart(LARGE_BLOCK_BYTES, { MALLOC_MMAP_THRESHOLD_: '65536' }, { mallopt })).toBe(
      false,
    );
    expect(
      mapLargeBlocksApart(
        LARGE_BLOCK_BYTES,
        { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' },
        { mallopt },
      ),
    ).toBe(false);
    expect(mapLargeBlocksApart(LARGE_BLOCK_BYTES, {}, null)).toBe(false);
    expect(calls).toHaveLength(1);
  });

  // In a process of its own: a large block freed below a live one. glibc, having seen one such block
  // mapped and freed, takes the next from its heap, and the pages stay resident once it is freed.
  it.skipIf(trim === null)(
    'gives a large freed block back at once, even below a live block (glibc)',
    async () => {
      const script = `const { readFileSync } = await import('node:fs');
const malloc = libc.func('void *malloc(size_t)');
const free = libc.func('void free(void *)');
const memset = libc.func('void *memset(void *, int, size_t)');
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
if (process.argv.includes('apart')) host.mapLargeBlocksApart();
const size = 16 * 1024 * 1024;
free(memset(malloc(size), 1, size)); // glibc raises its threshold to this size
const before = rss();
const large = memset(malloc(size), 1, size);
const above = malloc(64);
free(large);
console.log(JSON.stringify({ kept: rss() - before }));
free(above);`;
      const run = async (apart: boolean): Promise<number> => {
        const { stdout } = await inOwnProcess(script, apart ? ['apart'] : [], 'MALLOC_MMAP_THRESHOLD_');
        return (JSON.parse(stdout) as { kept: number }).kept;
      };
      const [apart, pooled] = await Promise.all([run(true), run(false)]);
      const MB = 1024 * 1024;
      expect(apart, JSON.stringify({ apart, pooled })).toBeLessThan(2 * MB);
      // Without the setting the block's pages stay: the test would see a setting that did nothing.
      expect(pooled, JSON.stringify({ apart, pooled })).toBeGreaterThan(12 * MB);
    },
    60_000,
  );
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
      // glibc's malloc_stats() writes one "Arena N:" block per arena to standard error: a count of
      // the allocator's own, where the process's mappings would count V8's reservations too.
      const script = `const { Worker } = await import('node:worker_threads');
const mallocStats = libc.func('void malloc_stats()');
const capped = process.argv.includes('cap') && host.limitAllocatorArenas();
mallocStats();
process.stderr.write('--- after\\n');
const work = 'const a = []; for (let i = 0; i < 300000; i++) a.push({ i, b: Buffer.alloc(64, i) }); a.length;';
await Promise.all(Array.from({ length: 6 }, () => new Promise((done) => new Worker(work, { eval: true }).on('exit', done))));
mallocStats();
console.log(JSON.stringify({ capped }));`;
      const run = async (cap: boolean): Promise<{ capped: boolean; before: number; after: number }> => {
        const { stdout, stderr } = await inOwnProcess(script, cap ? ['cap'] : [], 'MALLOC_ARENA_MAX');
        const [before, after] = stderr
          .split('--- after\n')
          .map((stats) => stats.match(/^Arena \d+:$/gm)?.length ?? 0);
        return { ...(JSON.parse(stdout) as { capped: boolean }), before: before!, after: after! };
      };
      const [capped, free] = await Promise.all([run(true), run(false)]);
      expect(capped.capped).toBe(true);
      // Arenas made before the cap stay (the loader's threads made some); no thread makes another.
      expect(capped.after, JSON.stringify({ capped, free })).toBe(capped.before);
      // Without the cap the same threads do make arenas: the test would see it if the cap did nothing.
      expect(free.after, JSON.stringify({ capped, free })).toBeGreaterThan(free.before);
    },
    60_000,
  );
});
