/**
 * Reading form posts (application/x-www-form-urlencoded, parsed by @fastify/formbody): a field sent
 * more than once arrives as an array, a missing one as undefined. Pages read fields through this so
 * neither surprises a handler.
 */
import { html, type SafeHtml } from './html.js';

/**
 * A fieldset of radio buttons, each labelled by its own label element, the one whose value is
 * `checked` chosen: the edit form's visibility, the preferences' units.
 */
export function radioGroup(group: {
  legend: string;
  name: string;
  idPrefix: string;
  choices: ReadonlyArray<{ value: string; label: string }>;
  checked: string;
}): SafeHtml {
  return html`<fieldset>
    <legend>${group.legend}</legend>
    ${group.choices.map(
      ({ value, label }) =>
        html`<input
            type="radio"
            id="${group.idPrefix}-${value}"
            name="${group.name}"
            value="${value}"
            ${value === group.checked ? 'checked' : ''}
          /><label for="${group.idPrefix}-${value}">${label}</label><br />`,
    )}
  </fieldset>`;
}

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
