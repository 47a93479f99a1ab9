import type { Kysely } from 'kysely';
import type { Engine } from '../db/engine.js';
import type { Generation } from '../db/generation.js';
import type { Database } from '../db/schema.js';

/** What every repository needs: the database, its generation and the clock (Unix milliseconds). */
export interface StoreContext {
  db: Kysely<Database>;
  /** for results kept in memory between requests (db/generation.ts) */
  generation: Generation;
  /** what the engine does its own way: ids, claims, unique keys (db/engine.ts) */
  engine: Engine;
  clock: () => number;
}
