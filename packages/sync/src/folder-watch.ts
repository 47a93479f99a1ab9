/**
 * File-system hints for the sync engine (docs/contributors/architecture.md, "Sync engine": the watcher's hint leads to a
 * pass). One watch per folder, never one per file (issue 22): the watcher this replaced (chokidar)
 * kept a watch handle, its listener closures and a `Stats` for every file under a source: heap per
 * synced file that stayed for as long as the engine ran. A folder's watch reports every file
 * created, changed or removed in it, which is all a hint needs: the pass that follows finds out what.
 *
 * Hints only: a folder that cannot be watched (the system's limit of watches reached, no permission)
 * is left to the engine's timers, which pass anyway.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/**
 * Folders watched at most, over all sources: the memory and the system's watches stay bounded whatever
 * a source holds. A device has a handful; a folder tree deeper or wider than this is found by the
 * engine's timed passes (fullPassIntervalMs).
 */
export const MAX_WATCHED_FOLDERS = 1_000;
/** Folders below a source followed at most (a device keeps rides two or three levels down). */
export const MAX_WATCH_DEPTH = 8;

export class FolderWatch {
  /** by folder: its watch, and how deep below its source it is */
  readonly #watches = new Map<string, { watcher: FSWatcher; depth: number }>();
  readonly #onHint: () => void;
  #closed = false;

  private constructor(onHint: () => void) {
    this.#onHint = onHint;
  }

  /** Watches `roots` and every folder below them (to MAX_WATCH_DEPTH); `onHint` on any change. */
  static async start(roots: readonly string[], onHint: () => void): Promise<FolderWatch> {
    const folderWatch = new FolderWatch(onHint);
    for (const root of roots) await folderWatch.#add(root, 0);
    return folderWatch;
  }

  /** how many folders are watched now */
  get size(): number {
    return this.#watches.size;
  }

  close(): void {
    this.#closed = true;
    for (const { watcher } of this.#watches.values()) watcher.close();
    this.#watches.clear();
  }

  /** Watches `folder` and the folders below it, breadth first, within the bounds above. */
  async #add(folder: string, depth: number): Promise<void> {
    const queue: { folder: string; depth: number }[] = [{ folder, depth }];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (this.#closed || this.#watches.size >= MAX_WATCHED_FOLDERS) return;
      if (this.#watches.has(next.folder) || !this.#watch(next.folder, next.depth)) continue;
      if (next.depth >= MAX_WATCH_DEPTH) continue;
      // Only folders are kept from the listing, and only until they are watched.
      const entries = await readdir(next.folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        // Symbolic links are not followed: a link to a parent would make a loop.
        if (entry.isDirectory()) queue.push({ folder: join(next.folder, entry.name), depth: next.depth + 1 });
      }
    }
  }

  #watch(folder: string, depth: number): boolean {
    let watcher: FSWatcher;
    try {
      // Not persistent: like the engine's timers, a watch never keeps the process alive by itself.
      watcher = watch(folder, { persistent: false }, (event, name) => {
        this.#changed(folder, depth, event, name);
      });
    } catch {
      return false;
    }
    watcher.on('error', () => {
      this.#forget(folder);
    });
    this.#watches.set(folder, { watcher, depth });
    return true;
  }

  #changed(folder: string, depth: number, event: string, name: string | null): void {
    if (this.#closed) return;
    this.#onHint();
    // A name came or went: it may be a new folder to watch, or a watched one removed.
    if (event !== 'rename' || name === null) return;
    const child = join(folder, name);
    void stat(child).then(
      (found) => {
        if (found.isDirectory() && depth < MAX_WATCH_DEPTH && !this.#watches.has(child)) {
          return this.#add(child, depth + 1);
        }
        return undefined;
      },
      () => {
        this.#forget(child);
      },
    );
  }

  /** Stops watching `folder` and everything below it (it is gone). */
  #forget(folder: string): void {
    for (const [watched, { watcher }] of this.#watches) {
      if (watched === folder || watched.startsWith(`${folder}${sep}`)) {
        watcher.close();
        this.#watches.delete(watched);
      }
    }
  }
}
