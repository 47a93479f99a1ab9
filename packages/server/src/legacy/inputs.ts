/**
 * Request values the legacy endpoints share: the `{id}` of the path, and `limit`/`offset` of the lists
 * (docs/contributors/decisions.md §5: "offset (default 0) and limit (default 20, max 200)"; §7: legacy limit 1..200).
 * A value that is not what it must be is a 400 naming the parameter, as v1 does for its paging and ids
 * (docs/contributors/decisions.md §2): it is the request that is malformed, not a record that cannot be processed.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { Page } from '../store/index.js';
import { OFFSET_RANGE, idParameter, readWholeNumber, wholeNumberProblem } from '../whole-numbers.js';
import type { LegacyParams } from './params.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;
const LIMIT_RANGE = { min: 1, max: MAX_LIMIT };

/** The `{id}` of the path: a whole number from 1 up, else 400 (the text sent is not echoed). */
export function pathId(request: FastifyRequest, what: string): number {
  return idParameter(request.params, 'id', `the ${what} id in the path`);
}

/** `limit` and `offset` of a legacy list; both problems at once when both are wrong. */
export function legacyPage(params: LegacyParams): Page {
  const limit = listParameter(params, 'limit', LIMIT_RANGE, DEFAULT_LIMIT);
  const offset = listParameter(params, 'offset', OFFSET_RANGE, 0);
  const problems = [limit, offset].flatMap((value) => (typeof value === 'string' ? [value] : []));
  if (typeof limit === 'string' || typeof offset === 'string') throw badRequest(problems);
  return { limit, offset };
}

/** The parameter, `fallback` when absent or blank, or the problem in words. */
function listParameter(
  params: LegacyParams,
  name: string,
  range: { min: number; max: number },
  fallback: number,
): number | string {
  const raw = params.raw(name);
  if (raw === undefined || raw === '') return fallback;
  return readWholeNumber(raw, range) ?? wholeNumberProblem(name, range, fallback);
}
