/**
 * Rendered pages of the routes and trips indexes, kept while they are current (issue 4: the routes
 * index at ≥ 40 % of a bare Fastify route's requests per second, bench/api.ts). Clients poll their
 * library again and again while it rarely changes; a page already sent is then sent again as the same
 * bytes, after one indexed query.
 *
 * Current means: rendered when the owner's newest change of that asset type had this id. Every write to
 * routes and trips goes through the data-access layer (store/assets.ts), which logs a change in the
 * same transaction, in whatever process it runs (the upload workers of issue 5 too), so the id moves
 * with any write that could change the page: its records, their order, the count. The version is read
 * before the page is, so a page is never stored under a version older than what it shows; a page newer
 * than its version is only ever missed, never served stale.
 */

interface Entry {
  version: number;
  body: Buffer;
}

export class PageCache {
  readonly #maxBytes: number;
  /** in least-recently-used order: a hit moves its entry to the end */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The page stored under `key` if it was rendered at `version`. */
  get(key: string, version: number): Buffer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version) {
      this.#bytes -= entry.body.length;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.body;
  }

  set(key: string, version: number, body: Buffer): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= previous.body.length;
    }
    if (body.length > this.#maxBytes) return;
    this.#entries.set(key, { version, body });
    this.#bytes += body.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.body.length;
    }
  }

  /** bytes held, for tests */
  get size(): number {
    return this.#bytes;
  }
}
