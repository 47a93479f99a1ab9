import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** What every repository needs: the database and the clock (Unix milliseconds). */
export interface StoreContext {
  db: Kysely<Database>;
  clock: () => number;
}
