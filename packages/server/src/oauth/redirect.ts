/**
 * Redirects back to a client (RFC 6749 §4.1.2): the registered redirect URI, verbatim, with the
 * answer's parameters added to its query.
 *
 * The library builds its own redirect URL, but it is not used: its error redirects parse the URI with
 * the legacy url.parse and lose their parameters when the registered URI already has a query, and
 * building every redirect here, from a URI the caller has already matched exactly against the
 * client's registered ones, keeps one place that guarantees the browser is never sent anywhere else
 * (docs/contributors/decisions.md §3).
 */
export function redirectWith(registeredUri: string, params: Record<string, string | undefined>): string {
  // Registered URIs have no fragment (RFC 6749 §3.1.2; the settings form refuses one); should one
  // have come in another way, it is dropped rather than carrying the parameters after it.
  const hash = registeredUri.indexOf('#');
  const base = hash === -1 ? registeredUri : registeredUri.slice(0, hash);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${query.toString()}`;
}
