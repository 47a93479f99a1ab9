/**
 * The seam between the store and the database engine (issue 18; docs/contributors/architecture.md, "Storage"): what SQLite
 * (one machine, the default) and PostgreSQL (several server processes on one database) do differently,
 * said once here, so repositories and route handlers never ask which engine runs.
 */
import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

/** Tables whose ids are drawn before the row is inserted, and never used twice. */
export type SequencedTable = 'routes' | 'trips' | 'events';

/** What only one server process on a database may do at a time. */
export type ExclusiveRoleName = 'webhook dispatcher' | 'nightly purge';

/** A role only one process on the database plays at a time, taken over when that process dies. */
export interface ExclusiveRole {
  /** Whether this process plays the role now, taking it when no other process does. */
  held(): Promise<boolean>;
  /** Gives the role up (the server stops). */
  release(): Promise<void>;
}

export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  /**
   * The next id of `table`, inside the caller's transaction. Never one used before, even by a row
   * since deleted (an old URL, a sync.json entry or a webhook must never point at another ride).
   */
  nextId(db: Kysely<Database>, table: SequencedTable): Promise<number>;
  /** A sub-select, in parentheses, of the integers in a JSON array bound as one value: `id IN <this>`. */
  integersOfJsonArray(json: unknown): RawBuilder<number>;
  /**
   * The select that picks a row to claim, locked for the claiming transaction so that other
   * sessions' claims pass it by (PostgreSQL's FOR UPDATE SKIP LOCKED, as pg-boss and graphile-worker
   * claim jobs). SQLite runs one writer at a time, so the select is left as it is.
   */
  lockedForClaim<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * Waits until no other transaction stores rides of `userId`, and keeps them waiting until this one
   * ends, so that the duplicate checks of two uploads stored at once (on two nodes) see each other's
   * rides: the same bytes, or the same recording in other bytes, become one set of trips. SQLite
   * commits one writer at a time, so there is nothing to wait for.
   */
  serializeRidesOf(db: Kysely<Database>, userId: number): Promise<void>;
  /** The UTF-8 bytes of a text column, read without decoding it into a JavaScript string. */
  textAsBytes(column: RawBuilder<unknown>): RawBuilder<Buffer | null>;
  /**
   * How many bytes of a large BLOB/bytea value to read at a time (Tasks.uploadBytes), or null to read
   * it whole (issue 18, "memory bounded per upload"). PostgreSQL sends bytea as hex text, which the
   * driver holds in its message and then as a string twice the value's size before it makes the bytes:
   * an upload read whole costs several times its size. SQLite reads a BLOB straight into a
   * Buffer, and a slice of it would load the whole value each time.
   */
  readonly bytesReadSlice: number | null;
  /** At most `length` bytes of a BLOB/bytea column, from byte `start` (0-based). */
  bytesSlice(column: RawBuilder<unknown>, start: number, length: number): RawBuilder<Buffer | null>;
  /**
   * The role `name` for this process. On SQLite it is always held: one server runs on a data directory
   * at a time (data-directory/claim.ts). On PostgreSQL an advisory lock held by a connection of its
   * own: when the process dies, its connection closes and another server's next `held()` takes it.
   */
  exclusiveRole(name: ExclusiveRoleName): ExclusiveRole;
  /**
   * A time (Unix ms, at most `nowMs`) such that every change stamped before it that will ever commit
   * is committed already: the watermark of sync.json (issue 18, "a commit-ordered watermark"). A
   * change is stamped with its server's clock inside its transaction, and may commit later than a
   * change stamped after it (two servers' transactions), so a window ending at `nowMs` could miss it.
   * SQLite: `nowMs` itself; its one connection runs one transaction at a time, so a read waits for
   * the write in progress.
   */
  settledBefore(db: Kysely<Database>, nowMs: number): Promise<number>;
  /** Whether `error` is the database refusing a row that breaks a unique key. */
  isUniqueViolation(error: unknown): boolean;
}
