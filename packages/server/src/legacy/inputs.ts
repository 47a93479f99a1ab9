/**
 * Request values the legacy endpoints share: the `{id}` of the path, and `limit`/`offset` of the lists
 * (decisions.md §5: "offset (default 0) and limit (default 20, max 200)"; §7: legacy limit 1..200).
 * A value that is not what it must be is a 400 naming the parameter, as v1 does for its paging and ids
 * (decisions.md §2): it is the request that is malformed, not a record that cannot be processed.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { Page } from '../store/index.js';
import type { LegacyParams } from './params.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;

/** Whole numbers as clients write them in a query: digits only, short enough to be exact. */
const WHOLE_NUMBER = /^\d{1,15}$/;

/** The `{id}` of the path: a positive integer, else 400. */
export function pathId(request: FastifyRequest, what: string): number {
  const text = (request.params as { id?: string }).id ?? '';
  const id = WHOLE_NUMBER.test(text) ? Number(text) : 0;
  // The text is not echoed: the message says what is wanted instead.
  if (id < 1) throw badRequest(`the ${what} id in the path must be a positive integer`);
  return id;
}

/** `limit` and `offset` of a legacy list; both problems at once when both are wrong. */
export function legacyPage(params: LegacyParams): Page {
  const problems: string[] = [];
  const limit = wholeNumber(params, 'limit', DEFAULT_LIMIT);
  if (limit === null || limit < 1 || limit > MAX_LIMIT) {
    problems.push(`limit must be a whole number from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})`);
  }
  const offset = wholeNumber(params, 'offset', 0);
  if (offset === null) problems.push('offset must be a whole number, 0 or more (default 0)');
  if (problems.length > 0 || limit === null || offset === null) throw badRequest(problems);
  return { limit, offset };
}

/** The parameter as a whole number, `fallback` when absent, null when it is something else. */
function wholeNumber(params: LegacyParams, name: string, fallback: number): number | null {
  const raw = params.raw(name);
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : null;
  const text = params.text(name);
  if (typeof raw !== 'string' || text === undefined) return null;
  return WHOLE_NUMBER.test(text) ? Number(text) : null;
}
