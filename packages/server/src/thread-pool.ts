/**
 * The server's pools of worker threads (the upload queue's parsers, queue/pool.ts; the first reading's
 * renderer, store/points-renderer.ts), over piscina, with what every one of them needs.
 *
 * A thread must run its timers between tasks: after a large task it collects its garbage half a
 * second later (heap-collection.ts). By default piscina parks an idle thread in `Atomics.wait`, which
 * stops the thread's event loop whole, so that timer never fired: each parse thread kept the columns
 * of the last huge ride it read (about 150 MB at 2,000,000 points) until its next task, and a minute
 * after a burst of archives the server held 400 MB against 170 MB before (issue 36,
 * docs/contributors/benchmarks.md). Tasks are handed over by messages instead: a few tens of
 * microseconds more per task, beside parses of milliseconds to seconds.
 */
import { Piscina } from 'piscina';

/** piscina's options, but for how threads wait for tasks (see above). */
export type ThreadPoolOptions = Omit<NonNullable<ConstructorParameters<typeof Piscina>[0]>, 'atomics'>;

/** A pool whose idle threads run their timers (see above). */
export function threadPool<Task, Result>(options: ThreadPoolOptions): Piscina<Task, Result> {
  return new Piscina<Task, Result>({ recordTiming: false, ...options, atomics: 'disabled' });
}
