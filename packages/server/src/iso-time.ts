/**
 * ISO 8601 UTC to the second, `2024-06-01T09:00:00Z`: every timestamp the API shows (docs/contributors/decisions.md §2),
 * in records, sync.json and the `x-service-datetime` header. Milliseconds are dropped, not rounded.
 */
export function isoTime(milliseconds: number): string {
  const text = new Date(milliseconds).toISOString();
  // `YYYY-MM-DDTHH:MM:SS.sssZ`, 24 characters, for years 0–9999; wider years keep the general form.
  return text.length === 24 ? `${text.slice(0, 19)}Z` : text.replace(/\.\d{3}Z$/, 'Z');
}
