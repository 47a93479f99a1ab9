/**
 * What opening a database gives, whichever engine it is (issue 18), apart from db/open.ts, which opens
 * one, so that the engines' files (sqlite.ts, postgres.ts) can say what they give without importing
 * the file that imports them (issue 35).
 */
import type { Kysely } from 'kysely';
import type { Engine } from './engine.js';
import type { Generation } from './generation.js';
import type { Database } from './schema.js';

export interface OpenDatabase {
  db: Kysely<Database>;
  /** what the engine does its own way (db/engine.ts) */
  engine: Engine;
  /** tells whether the database may have changed since a moment, for results kept between requests */
  generation: Generation;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Checkpoint the write-ahead log in a thread of its own (db/checkpointer.ts): for the server, whose
   * requests should not wait for checkpoints; short-lived users (`rideport admin`) leave it to SQLite.
   * SQLite only.
   */
  backgroundCheckpoints?: boolean;
}
