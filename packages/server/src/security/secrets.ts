/**
 * Random credentials and how they are kept (docs/contributors/decisions.md §1): tokens and secrets are 256-bit random
 * values; the database holds only their SHA-256, and comparisons are constant-time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new 256-bit random value, base64url (43 characters). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A new API key: 128 bits, hex, so it is safe in URLs, headers and the legacy `apikey` parameter. */
export function randomApiKey(): string {
  return randomBytes(16).toString('hex');
}

/** What the database stores for a token or secret. */
export function secretHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time equality of two strings (different lengths compare unequal, also in constant time). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

/**
 * An API client's secret, derived from the server's master key rather than stored (docs/contributors/decisions.md §1
 * keeps only hashes in the database, yet §6 signs webhooks with the secret and §4 shows it on the
 * developer settings page): HMAC-SHA256(master key, "client-secret:<api_key>:<generation>").
 * Regenerating the secret bumps the generation. A copy of the database alone reveals no secret.
 */
export function deriveClientSecret(masterKey: Buffer, apiKey: string, generation: number): string {
  return createHmac('sha256', masterKey).update(`client-secret:${apiKey}:${generation}`).digest('base64url');
}

/** A new master key (32 random bytes). */
export function newMasterKey(): Buffer {
  return randomBytes(32);
}
