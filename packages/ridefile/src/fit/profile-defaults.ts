/**
 * The generated FIT profile leaves out every value that is its default (issue 21: the browser bundle's
 * budget; the profile is most of it, and most of its fields are a plain number with scale 1, offset 0,
 * no units, no components and no sub-fields). This fills the defaults back in once, when the module
 * loads, so the rest of the reader sees whole `FitProfileField`s.
 */
import type { FitComponent, FitProfileField, FitProfileMessage, FitSubField } from './profile-types.js';

type Compact<T, Required extends keyof T> = Pick<T, Required> & Partial<Omit<T, Required>>;

export type CompactComponent = Compact<FitComponent, 'fieldNum' | 'bits'>;

export type CompactSubField = Compact<
  Omit<FitSubField, 'components'>,
  'name' | 'type' | 'baseType' | 'when'
> & { readonly components?: readonly CompactComponent[] };

export type CompactField = Compact<
  Omit<FitProfileField, 'components' | 'subFields'>,
  'num' | 'name' | 'type' | 'baseType'
> & { readonly components?: readonly CompactComponent[]; readonly subFields?: readonly CompactSubField[] };

export interface CompactMessage {
  readonly num: number;
  readonly name: string;
  readonly fields: Readonly<Record<number, CompactField>>;
}

/** The values the generator leaves out (scripts/generate-fit-profile.ts writes only what differs). */
export const FIELD_DEFAULTS = { array: false, scale: 1, offset: 0, units: '', accumulated: false } as const;
export const SUB_FIELD_DEFAULTS = { scale: 1, offset: 0 } as const;
export const COMPONENT_DEFAULTS = { scale: 1, offset: 0, accumulate: false } as const;

function component(compact: CompactComponent): FitComponent {
  return { ...COMPONENT_DEFAULTS, ...compact };
}

function subField(compact: CompactSubField): FitSubField {
  return { ...SUB_FIELD_DEFAULTS, ...compact, components: (compact.components ?? []).map(component) };
}

function field(compact: CompactField): FitProfileField {
  return {
    ...FIELD_DEFAULTS,
    ...compact,
    components: (compact.components ?? []).map(component),
    subFields: (compact.subFields ?? []).map(subField),
  };
}

/** The whole messages of the compact profile. */
export function expandMessages<Name extends string>(
  messages: Readonly<Record<Name, CompactMessage>>,
): Readonly<Record<Name, FitProfileMessage>> {
  const entries = Object.entries<CompactMessage>(messages).map(([name, message]) => {
    const fields = Object.fromEntries(Object.entries(message.fields).map(([num, f]) => [num, field(f)]));
    return [name, { num: message.num, name: message.name, fields }];
  });
  return Object.fromEntries(entries) as Record<Name, FitProfileMessage>;
}
