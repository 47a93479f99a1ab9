/**
 * Freed memory given back to the system, for the processes that run for weeks (`rideport up`, `sync`,
 * `serve`, `worker` and the desktop app; issue 22, README "Memory over weeks").
 *
 * On Linux, glibc's allocator keeps what the process frees for reuse and returns to the system only the
 * free space at the very top of each heap. Memory freed below a block still in use stays resident, in
 * the main heap and in the heaps ("arenas") of the other threads: V8's collector and compiler helpers,
 * which allocate and free their working memory at every collection and compilation. Over hours that is
 * what `rideport sync`'s resident memory rose by while its JavaScript heap stayed level (`bench:soak`:
 * 13 to 16 MB an hour, about 20 KB per file synced). glibc's `malloc_trim(0)` hands every free page of
 * every arena back (it has done so inside the heaps, not only at their top, since glibc 2.8); a call
 * takes well under a millisecond. What it cannot give back are pages that still hold a live block, and
 * every arena has its own such pages: so the arenas are also capped at two (limitAllocatorArenas).
 * Node has no binding for either, so they are called through koffi, a C FFI with prebuilt binaries for
 * every platform Node runs on (no compiler at install). This module loads nothing else, so the CLI's
 * launcher can use it before the rest (`@rideport/server/freed-memory`).
 *
 * Only where glibc is the C library: musl (Alpine) has neither arenas of this kind nor `malloc_trim`,
 * and macOS and Windows have allocators of their own; there this does nothing.
 */
import { createRequire } from 'node:module';

/** How often, ms: the rise it removes is tens of kilobytes a minute, and a call costs next to nothing. */
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

/** malloc.h's M_ARENA_MAX: the most arenas glibc makes, the main heap's included */
const M_ARENA_MAX = -8;

/**
 * Arenas a long-running process keeps at most. glibc makes up to eight per core, one for each thread
 * that allocates while the others' are busy, and memory freed in one is never used by another: in
 * `bench:soak` the other threads' arenas were what `rideport sync`'s memory rose by (+12 MB an hour,
 * r² 0.78, with malloc_trim every minute), and a test of many threads held 89 MB in 12 arenas where two
 * arenas held 25 MB. Two is what Heroku and others recommend for the same reason; the threads that
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
  if (allocator === null) return false;
  if (env.MALLOC_ARENA_MAX !== undefined || env.GLIBC_TUNABLES?.includes('arena_max') === true) return false;
  return allocator.mallopt(M_ARENA_MAX, max) === 1;
}

/**
 * Calls `malloc_trim(0)` every `intervalMs` for as long as the process runs (the timer does not keep it
 * running); the returned function stops it. Does nothing where there is no `malloc_trim`.
 */
export function returnFreedMemoryPeriodically(
  intervalMs = FREED_MEMORY_INTERVAL_MS,
  trim: MallocTrim | null = mallocTrim(),
): () => void {
  if (trim === null) return () => undefined;
  const timer = setInterval(() => trim(0), intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
