/**
 * Legacy request parameters (docs/contributors/decisions.md §1, §5): `apikey`, `auth_token`, `version`, `email`,
 * `password`, `callback`, `trip[name]`, `track_points`… may come in the query string, a form body or
 * a JSON body. Forms name nested fields `trip[name]`; JSON nests them (`{"trip": {"name": …}}`).
 * A value in the body wins over the same name in the query.
 */

type Source = Record<string, unknown>;

function asSource(value: unknown): Source {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Source) : {};
}

export class LegacyParams {
  readonly #sources: Source[];

  constructor(query: unknown, body: unknown) {
    this.#sources = [asSource(body), asSource(query)];
  }

  /**
   * The value of `name` as sent, or undefined. `name` may be a form path (`trip[name]`): it is found
   * flat (`{"trip[name]": …}`) or nested (`{"trip": {"name": …}}`).
   */
  raw(name: string): unknown {
    const path = name.split(/\[|\]\[?/).filter((part) => part !== '');
    for (const source of this.#sources) {
      if (source[name] !== undefined) return source[name];
      let value: unknown = source;
      for (const part of path) value = asSource(value)[part];
      if (value !== undefined && path.length > 1) return value;
    }
    return undefined;
  }

  /** A text parameter, trimmed; undefined when absent or blank (a repeated one: its first value). */
  text(name: string): string | undefined {
    let value = this.raw(name);
    if (Array.isArray(value)) value = value[0];
    if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
    if (typeof value !== 'string') return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
}
