/**
 * One expensive thing for a whole test run (issue 35: one PostgreSQL cluster and one Chromium a run, not
 * one a file), shared by every project whose global setup takes it. Each project loads its global
 * setup in a module runner of its own, so the resource is kept on the main process's global object,
 * with a count of the projects using it; the last to release it stops it.
 */

interface Held<T> {
  value: Promise<T>;
  users: number;
}

export interface RunResource<T> {
  /** the resource; a start that failed rejects here, for every project that takes it */
  value: Promise<T>;
  /** Gives this project's share back; the last one stops the resource. Once per take. */
  release: () => Promise<void>;
}

/** The run's resource under `key`, started by `start` when no project holds it yet. */
export function takeRunResource<T>(
  key: string,
  start: () => Promise<T>,
  stop: (resource: T) => Promise<void> | void,
): RunResource<T> {
  const holder = globalThis as unknown as Record<string, Held<T> | undefined>;
  const held = (holder[key] ??= { value: start(), users: 0 });
  held.users += 1;
  let released = false;
  return {
    value: held.value,
    release: async () => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      holder[key] = undefined;
      // A resource that failed to start has nothing to stop (and its setup said why).
      const resource = await held.value.catch(() => undefined);
      if (resource !== undefined) await stop(resource);
    },
  };
}
