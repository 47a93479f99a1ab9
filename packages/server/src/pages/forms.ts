/**
 * Reading form posts (application/x-www-form-urlencoded, parsed by @fastify/formbody): a field sent
 * more than once arrives as an array, a missing one as undefined. Pages read fields through this so
 * neither surprises a handler.
 */
export class FormFields {
  readonly #body: Record<string, unknown>;

  constructor(body: unknown) {
    this.#body = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  }

  /** The field's value, trimmed unless `raw`; '' when missing, and the first value when repeated. */
  text(name: string, { raw = false }: { raw?: boolean } = {}): string {
    const value = this.list(name)[0] ?? '';
    return raw ? value : value.trim();
  }

  /** Every value of a field that may repeat (checkboxes). */
  list(name: string): string[] {
    const value = this.#body[name];
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
    return [];
  }
}
