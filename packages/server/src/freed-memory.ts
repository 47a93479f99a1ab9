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
 * takes well under a millisecond. Node has no binding for it, so it is called through koffi, a C FFI
 * with prebuilt binaries for every platform Node runs on (no compiler at install).
 *
 * Only where glibc is the C library: musl (Alpine) has neither arenas of this kind nor `malloc_trim`,
 * and macOS and Windows have allocators of their own; there this does nothing.
 */
import { createRequire } from 'node:module';

/** How often, ms: the rise it removes is tens of kilobytes a minute, and a call costs next to nothing. */
export const FREED_MEMORY_INTERVAL_MS = 60_000;

/** glibc's `malloc_trim(pad)`: 1 when memory was given back, else 0. */
export type MallocTrim = (pad: number) => number;

let loaded: MallocTrim | null | undefined;

/** `malloc_trim` of this process's C library, or null where there is none (see above). */
export function mallocTrim(): MallocTrim | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== 'linux') return loaded;
  try {
    // koffi is loaded only here, and only on Linux: `require`, as it is a native module.
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t)') as MallocTrim;
    loaded = trim;
  } catch {
    // Not glibc (no libc.so.6, or no malloc_trim in it), or koffi has no binary for this machine.
  }
  return loaded;
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
