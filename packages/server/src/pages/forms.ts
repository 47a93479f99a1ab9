/**
 * Reading form posts (application/x-www-form-urlencoded, parsed by @fastify/formbody): a field sent
 * more than once arrives as an array, a missing one as undefined. Pages read fields through this so
 * neither surprises a handler.
 */
import { wholeNumberOr400, type WholeNumberRange } from '../whole-numbers.js';
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

  /**
   * The field's value, trimmed, when it was sent at most once ('' when missing); undefined when it was
   * sent more than once. For fields of one value, numbers above all (issue 36: a number given twice is
   * a 400, not its first value).
   */
  only(name: string): string | undefined {
    const values = this.list(name);
    return values.length > 1 ? undefined : (values[0] ?? '').trim();
  }

  /** The field as a whole number in `range`, or the 400 that says what it must be (also when repeated). */
  wholeNumber(name: string, range: WholeNumberRange): number {
    const value = this.only(name);
    return wholeNumberOr400(value ?? [], name, range);
  }

  /** Every value of a field that may repeat (checkboxes). */
  list(name: string): string[] {
    const value = this.#body[name];
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
    return [];
  }
}
