/**
 * The legacy interface version of a request (docs/integrators/api.md, Versioning; docs/contributors/decisions.md §5): the
 * `version` parameter, else the API client's own (the version current when it was issued). Version 2
 * lists are `{"results": [...], "results_count": N}`; version 1 lists are bare arrays.
 */
import { badRequest } from '../errors.js';
import type { ApiClient } from '../store/index.js';
import type { LegacyParams } from './params.js';

export type LegacyVersion = 1 | 2;

export const SUPPORTED_VERSIONS: readonly LegacyVersion[] = [1, 2];

export function legacyVersion(params: LegacyParams, client: ApiClient): LegacyVersion {
  // A repeated version is none of them (issue 17: a parameter given twice is refused, not guessed).
  const raw = params.raw('version');
  const given = Array.isArray(raw) ? raw.join(',') : params.text('version');
  const value = given === undefined ? client.legacyVersion : Number(given);
  if (value === 1 || value === 2) return value;
  throw badRequest(
    `unsupported version ${given ?? String(value)}; supported: ${SUPPORTED_VERSIONS.join(', ')}`,
  );
}

/**
 * A list in the shape of `version`. `total`: how many items match in all, of which `items` is one page
 * (limit/offset); version 2's `results_count` is that total, not the page's length, so a client can
 * tell how many pages there are. Without paging it is the list's length.
 */
export function legacyList<T>(
  version: LegacyVersion,
  items: T[],
  total: number = items.length,
): T[] | { results: T[]; results_count: number } {
  return version === 1 ? items : { results: items, results_count: total };
}
