/**
 * v1 pagination (docs/contributors/decisions.md §2; docs/integrators/api.md, "Pagination metadata" and Limits): `page` is 1-based
 * (at most PAGE_RANGE.max, issue 17), `page_size` 20..200, default 20; anything else is a 400 naming
 * the parameter (the schema below, through the v1 error handler). A page past the end is an empty list, not an error. `next_page_url` is absolute,
 * built from the public base URL, keeps `page_size`, and is null on the last page.
 */
import type { Page } from '../../store/index.js';
import { PAGE_RANGE, wholeNumberSchema } from '../../whole-numbers.js';

export const MIN_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 20;

export const PAGINATION_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    page: wholeNumberSchema(PAGE_RANGE, { default: 1, description: '1-based' }),
    page_size: wholeNumberSchema({ min: MIN_PAGE_SIZE, max: MAX_PAGE_SIZE }, { default: DEFAULT_PAGE_SIZE }),
  },
} as const;

/** The query after validation: Ajv has filled the defaults. */
export interface PaginationQuery {
  page: number;
  page_size: number;
}

export function pageOf(query: PaginationQuery): Page {
  return { offset: (query.page - 1) * query.page_size, limit: query.page_size };
}

export interface PaginationMeta {
  record_count: number;
  page_count: number;
  page_size: number;
  next_page_url: string | null;
}

/** `listUrl`: the absolute URL of the list, without a query. */
export function paginationMeta(query: PaginationQuery, recordCount: number, listUrl: string): PaginationMeta {
  const pageCount = Math.ceil(recordCount / query.page_size);
  return {
    record_count: recordCount,
    page_count: pageCount,
    page_size: query.page_size,
    next_page_url:
      query.page < pageCount ? `${listUrl}?page=${query.page + 1}&page_size=${query.page_size}` : null,
  };
}
