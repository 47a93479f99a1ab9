/**
 * What a webhook request carries (docs/contributors/decisions.md §6): the body `{"notifications": [...]}` and the
 * headers, with `x-service-signature` the lower-case hex HMAC-SHA256 of the exact body bytes, keyed
 * with the API client's secret. The body is built from the outbox rows alone, so every retry of a
 * delivery sends the same bytes (the signature changes only if the secret is regenerated meanwhile).
 */
import { createHmac } from 'node:crypto';
import { assetUrl, v1UrlPrefix } from '../v1-urls.js';
import type { OutboxRow } from '../store/index.js';

export const USER_AGENT = 'Rideport-Webhooks/1';

/** At most this many notifications in one request (docs/contributors/decisions.md §6). */
export const MAX_NOTIFICATIONS_PER_REQUEST = 100;

/** One notification as the receiver gets it. */
export interface Notification {
  /** who acted */
  user_id: number;
  item_type: 'route' | 'trip';
  item_id: number;
  /** the owner */
  item_user_id: number;
  item_url: string;
  action: 'created' | 'updated' | 'deleted';
  collection: null;
}

/** The body of a delivery, in the order of the rows (the order of the changes). */
export function notificationsBody(rows: readonly OutboxRow[], baseUrl: URL): Buffer {
  const prefix = v1UrlPrefix(baseUrl);
  const notifications: Notification[] = rows.map((row) => ({
    user_id: row.user_id,
    item_type: row.item_type,
    item_id: row.item_id,
    item_user_id: row.item_user_id,
    item_url: assetUrl(prefix, row.item_type, row.item_id),
    action: row.action,
    collection: null,
  }));
  return Buffer.from(JSON.stringify({ notifications }), 'utf8');
}

/** Lower-case hex HMAC-SHA256 of `body`, keyed with `secret`. */
export function signature(body: Uint8Array, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function deliveryHeaders(
  body: Uint8Array,
  apiKey: string,
  secret: string,
  deliveryId: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-api-key': apiKey,
    'x-service-delivery': deliveryId,
    'x-service-signature': signature(body, secret),
  };
}
