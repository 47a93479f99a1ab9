/**
 * ISO 8601 UTC to the second, `2024-06-01T09:00:00Z`: every timestamp the API shows (decisions.md §2),
 * in records, sync.json and the `x-service-datetime` header. Milliseconds are dropped, not rounded.
 */
export function isoTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
