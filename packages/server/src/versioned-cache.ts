/**
 * Results kept in memory while they are current, each stored with the version of what it was computed
 * from and handed out only while the caller still sees that version (issue 4's bench/api: clients ask
 * the same questions again and again while the answers rarely change). Uses: the rendered pages of the
 * v1 indexes, versioned by the owner's newest change (api/v1/asset-endpoints.ts), and credential
 * lookups and list versions, versioned by the database's generation (db/generation.ts).
 *
 * Callers read the version before computing a result, so a result is never stored under a version
 * older than what it shows: a result newer than its version is only ever missed, never served stale.
 * Bounded by a total weight (bytes for pages, one per entry by default), least recently used first out.
 */

interface Entry<V> {
  version: number;
  value: V;
  weight: number;
}

export class VersionedCache<V> {
  readonly #maxWeight: number;
  readonly #weigh: (value: V) => number;
  /** in least-recently-used order: a hit moves its entry to the end */
  readonly #entries = new Map<string, Entry<V>>();
  #weight = 0;

  constructor(maxWeight: number, weigh: (value: V) => number = () => 1) {
    this.#maxWeight = maxWeight;
    this.#weigh = weigh;
  }

  /** The value stored under `key` if it was computed at `version`. */
  get(key: string, version: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version) {
      this.#weight -= entry.weight;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, version: number, value: V): void {
    this.delete(key);
    const weight = this.#weigh(value);
    if (weight > this.#maxWeight) return;
    this.#entries.set(key, { version, value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.#maxWeight) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }

  /** the total weight held, for tests */
  get weight(): number {
    return this.#weight;
  }
}
