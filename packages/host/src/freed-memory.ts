/**
 * Freed memory given back to the system, for the processes that run for weeks (`rideport up`, `sync`,
 * `serve`, `worker` and the desktop app; issue 22, docs/operators/memory.md).
 *
 * On Linux, glibc's allocator keeps what the process frees for reuse and returns to the system only the
 * free space at the very top of each heap. Memory freed below a block still in use stays resident, in
 * the main heap and in the heaps ("arenas") of the other threads: V8's collector and compiler helpers,
 * which allocate and free their working memory at every collection and compilation. Over hours that is
 * what `rideport sync`'s resident memory rose by while its JavaScript heap stayed level (`bench:soak`;
 * the figures are in docs/contributors/benchmarks.md). glibc's `malloc_trim(0)` hands every free page
 * of every arena back (it has done so inside the heaps, not only at their top, since glibc 2.8), and a
 * call is cheap beside the minute between calls. What it cannot give back are pages that still hold a live block, and
 * every arena has its own such pages: so the arenas are also capped at two (limitAllocatorArenas).
 * Node has no binding for either, so they are called through koffi, a C FFI with prebuilt binaries for
 * every platform Node runs on (no compiler at install). This module loads nothing else but V8's full
 * collection (`@rideport/server/heap-collection`, which the server's worker threads use too), so the
 * CLI's launcher can use it before the rest (`@rideport/host/freed-memory`).
 *
 * Only where glibc is the C library: musl (Alpine) has neither arenas of this kind nor `malloc_trim`,
 * and macOS and Windows have allocators of their own; there the trim and the cap do nothing. V8's own
 * memory is given back everywhere: a full collection once its heap has grown (collectWhenGrown).
 */
import { createRequire } from 'node:module';
import { getHeapStatistics } from 'node:v8';
import { v8FullCollection, type CollectGarbage } from '@rideport/server/heap-collection';

export { v8FullCollection, type CollectGarbage };

/**
 * How often, ms: the rise it removes is small from one minute to the next; a trim costs next to
 * nothing, and a collection, a pause that grows with the heap, is asked for only when the heap has grown.
 */
export const FREED_MEMORY_INTERVAL_MS = 60_000;

/** glibc's `malloc_trim(pad)`: 1 when memory was given back, else 0. */
export type MallocTrim = (pad: number) => number;
/** glibc's `mallopt(param, value)`: 1 on success, else 0. */
type Mallopt = (param: number, value: number) => number;

interface GlibcAllocator {
  trim: MallocTrim;
  mallopt: Mallopt;
}

let loaded: GlibcAllocator | null | undefined;

/** glibc's allocator controls, or null where glibc is not the C library (see above). */
function glibcAllocator(): GlibcAllocator | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') return loaded;
  try {
    // koffi is loaded only here, and only on Linux: `require`, as it is a native module.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const libc = koffi.load('libc.so.6');
    loaded = {
      trim: libc.func('int malloc_trim(size_t)') as MallocTrim,
      mallopt: libc.func('int mallopt(int, int)') as Mallopt,
    };
  } catch {
    // Not glibc (no libc.so.6, or no malloc_trim in it), or koffi has no binary for this machine.
  }
  return loaded;
}

/** `malloc_trim` of this process's C library, or null where there is none (see above). */
export function mallocTrim(): MallocTrim | null {
  return glibcAllocator()?.trim ?? null;
}

/**
 * Arenas a long-running process keeps at most. glibc makes up to eight per core, one for each thread
 * that allocates while the others' are busy, and memory freed in one is never used by another: in
 * `bench:soak` the other threads' arenas were what `rideport sync`'s memory rose by, even with
 * malloc_trim every minute, and a test of many threads held several times more in a dozen arenas than
 * in two (docs/contributors/benchmarks.md, issue 22). Two is what Heroku and others recommend for the
 * same reason; the threads that
 * share them (V8's helpers, libuv's pool, parse workers) allocate little, so they seldom wait.
 */
export const MAX_ALLOCATOR_ARENAS = 2;

/**
 * Caps glibc's arenas at `max` for the rest of the process's life: threads that have not allocated yet
 * share the existing ones. Call it before anything else, while few threads have allocated (the CLI's
 * launcher does, before loading the rest). Left alone when the user set `MALLOC_ARENA_MAX` or
 * `glibc.malloc.arena_max` in `GLIBC_TUNABLES`, and where there is no glibc. True when it was set.
 */
export function limitAllocatorArenas(
  max = MAX_ALLOCATOR_ARENAS,
  env: Readonly<Record<string, string | undefined>> = process.env,
  allocator: Pick<GlibcAllocator, 'mallopt'> | null = glibcAllocator(),
): boolean {
  return setAllocatorOption(ARENA_MAX, max, env, allocator);
}

/**
 * The size from which a block is a mapping of its own, given back the moment it is freed. glibc starts
 * at 128 KiB but raises the threshold to the size of each mapped block freed, up to 32 MiB: after the
 * first large upload every Buffer of a few megabytes (a file, its packed points, a blob read from the
 * database) came from the heaps, and what they left there stayed resident until a trim, and for good
 * where a live block sat above it (issue 36: a minute after a burst of archives the server held
 * hundreds of megabytes more than before). A fixed threshold keeps glibc from raising it.
 */
export const LARGE_BLOCK_BYTES = 256 * 1024;

/**
 * Makes every block of `threshold` bytes or more a mapping of its own for the rest of the process's
 * life (see LARGE_BLOCK_BYTES). Left alone when the user set `MALLOC_MMAP_THRESHOLD_` or
 * `glibc.malloc.mmap_threshold` in `GLIBC_TUNABLES`, and where there is no glibc. True when it was set.
 */
export function mapLargeBlocksApart(
  threshold = LARGE_BLOCK_BYTES,
  env: Readonly<Record<string, string | undefined>> = process.env,
  allocator: Pick<GlibcAllocator, 'mallopt'> | null = glibcAllocator(),
): boolean {
  return setAllocatorOption(MMAP_THRESHOLD, threshold, env, allocator);
}

/** One of glibc's `mallopt` options, with the ways a user sets it without us. */
interface AllocatorOption {
  /** malloc.h's constant */
  param: number;
  /** the environment variable glibc reads it from */
  variable: string;
  /** its name in `GLIBC_TUNABLES` (`glibc.malloc.<name>`) */
  tunable: string;
}

/** malloc.h's M_ARENA_MAX: the most arenas glibc makes, the main heap's included */
const ARENA_MAX: AllocatorOption = { param: -8, variable: 'MALLOC_ARENA_MAX', tunable: 'arena_max' };

/** malloc.h's M_MMAP_THRESHOLD: blocks of at least this many bytes are mappings of their own */
const MMAP_THRESHOLD: AllocatorOption = {
  param: -3,
  variable: 'MALLOC_MMAP_THRESHOLD_',
  tunable: 'mmap_threshold',
};

/** Sets `option` to `value` unless the user set it, or there is no glibc; true when it was set. */
function setAllocatorOption(
  { param, variable, tunable }: AllocatorOption,
  value: number,
  env: Readonly<Record<string, string | undefined>>,
  allocator: Pick<GlibcAllocator, 'mallopt'> | null,
): boolean {
  if (allocator === null) return false;
  if (env[variable] !== undefined || env.GLIBC_TUNABLES?.includes(tunable) === true) return false;
  return allocator.mallopt(param, value) === 1;
}

/**
 * How far V8's heap may grow past its size after the last full collection before another is asked
 * for: a full collection stops the main thread for a time that grows with the memory in use, so it is
 * asked for only when there is memory to gain, not every minute.
 */
export const HEAP_GROWTH_BEFORE_COLLECTING_BYTES = 1024 * 1024;

/**
 * `collect`, run only when V8's heap (the pages it holds, `total_heap_size`) has grown by more than
 * `growth` since the last time it ran (or since this was made). The memory outside the heap that
 * Buffers hold is not counted: V8 collects for it by itself, incrementally, where a full collection
 * forced in the middle of a burst of uploads stopped the server's main thread for 250–330 ms
 * (bench:archive-stall, issue 36).
 */
export function collectWhenGrown(
  collect: CollectGarbage,
  growth = HEAP_GROWTH_BEFORE_COLLECTING_BYTES,
  heapBytes: () => number = () => getHeapStatistics().total_heap_size,
): CollectGarbage {
  let after = heapBytes();
  return async () => {
    if (heapBytes() <= after + growth) return;
    await collect();
    after = heapBytes();
  };
}

/** V8's full collection when its heap has grown (collectWhenGrown), or null where there is none. */
function grownHeapCollection(): CollectGarbage | null {
  const collect = v8FullCollection();
  return collect === null ? null : collectWhenGrown(collect);
}

/**
 * Every `intervalMs` for as long as the process runs (the timer does not keep it running), gives back
 * what it no longer uses; the returned function stops it:
 *
 * - first V8's memory, by a full collection (`collect`). V8 collects its old generation only once it
 *   has grown to a limit set at the collection before (up to about four times what was live then), and
 *   a process that allocates a little all the time, a ride every few seconds, climbs towards that
 *   limit for an hour or more: in `bench:soak` the pages of `rideport sync`'s heap rose for as long as
 *   a run lasted, while the runs that forced a collection every 15 s found what is live level and saw
 *   no such rise (issue 22; docs/contributors/benchmarks.md). After a collection V8 keeps what is live and hands empty pages
 *   back, and the memory that dead JavaScript objects held (Buffers) is freed, for the trim below.
 *   The main thread stops while it runs, so it runs only when the heap has grown by
 *   HEAP_GROWTH_BEFORE_COLLECTING_BYTES since the last one (collectWhenGrown).
 * - then the C allocator's, by `malloc_trim(0)` (`trim`).
 *
 * Either may be null (none here); a round starts only when the one before has ended.
 */
export function returnFreedMemoryPeriodically(
  intervalMs = FREED_MEMORY_INTERVAL_MS,
  trim: MallocTrim | null = mallocTrim(),
  collect: CollectGarbage | null = grownHeapCollection(),
): () => void {
  if (trim === null && collect === null) return () => undefined;
  let running = false;
  const round = async (): Promise<void> => {
    try {
      if (collect) await collect();
    } catch {
      // A collection that failed leaves the trim to do what it can.
    }
    trim?.(0);
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void round().finally(() => {
      running = false;
    });
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
