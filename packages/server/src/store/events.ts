/**
 * Events (docs/contributors/decisions.md §2: `name` and `start_date` required; the v1 layer checks them and answers 422).
 * Dates are calendar dates, YYYY-MM-DD, as the client sent them; ids are never reused (migration 002).
 */
// Types only: an event's fields are the v1 record schema's (issue 35); nothing of the API runs here.
import type { EventRecord } from '../wire/records.js';
import type { EventRow } from '../db/schema.js';
import type { StoreContext } from './context.js';
import type { Page } from './assets.js';
import { assertFits, TEXT_MAX_CHARS } from './text-limits.js';

/** What an event is stored with: its record's fields but those the store sets (dates YYYY-MM-DD). */
export type EventFields = Omit<EventRecord, 'id' | 'user_id' | 'created_at' | 'updated_at'>;

export class Events {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async create(userId: number, fields: EventFields): Promise<EventRow> {
    assertEventFits(fields);
    return this.#context.db.transaction().execute(async (db) => {
      const now = this.#context.clock();
      const id = await this.#context.engine.nextId(db, 'events');
      return db
        .insertInto('events')
        .values({ id, user_id: userId, ...fields, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  findById(id: number): Promise<EventRow | undefined> {
    return this.#context.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Sets the given fields; undefined when there is no such event. */
  update(id: number, changes: Partial<EventFields>): Promise<EventRow | undefined> {
    assertEventFits(changes);
    return this.#context.db
      .updateTable('events')
      .set({ ...changes, updated_at: this.#context.clock() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.#context.db.deleteFrom('events').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** One page of `ownerId`'s events, updated_at descending then id descending, and their number. */
  async listByOwner(ownerId: number, page: Page): Promise<{ rows: EventRow[]; total: number }> {
    const counted = await this.#context.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('user_id', '=', ownerId)
      .executeTakeFirstOrThrow();
    if (counted.total <= page.offset) return { rows: [], total: counted.total };
    const rows = await this.#context.db
      .selectFrom('events')
      .selectAll()
      .where('user_id', '=', ownerId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { rows, total: counted.total };
  }
}

/** The event's texts within their maxima (store/text-limits.ts), else TextTooLongError. */
function assertEventFits(fields: Partial<EventFields>): void {
  assertFits('name', fields.name, TEXT_MAX_CHARS.eventName);
  assertFits('description', fields.description, TEXT_MAX_CHARS.eventText);
  assertFits('location', fields.location, TEXT_MAX_CHARS.eventText);
  assertFits('url', fields.url, TEXT_MAX_CHARS.url);
}
