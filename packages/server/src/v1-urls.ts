/**
 * Absolute v1 URLs (issue 4; docs/contributors/decisions.md §2: `next_page_url`, record `url`, sync
 * `item_url`), built from the configured public base URL. In a module of its own because the v1 answers
 * and the webhooks (their `item_url`) both build them (issue 35: no service imports an HTTP handler).
 */
import type { AssetType } from './db/schema.js';

/**
 * The prefix of absolute v1 URLs (`next_page_url`, record `url`, sync `item_url`): the configured public
 * base URL, which may carry a path when the server sits behind a proxy, then /api/v1.
 */
export function v1UrlPrefix(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}/api/v1`;
}

/** The v1 URL of one route or trip, e.g. http://127.0.0.1:4242/api/v1/trips/7.json. */
export function assetUrl(prefix: string, type: AssetType, id: number): string {
  return `${prefix}/${type}s/${id}.json`;
}
