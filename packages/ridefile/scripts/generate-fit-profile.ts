/**
 * Generates src/fit/profile.generated.ts from the official FIT profile that @garmin/fitsdk exports
 * (issue 2: "Take message and field definitions from the official FIT profile rather than typing
 * numbers by hand"). Only the messages and types the reader uses are kept, so the library stays small.
 *
 *   npm run generate:fit-profile
 *
 * src/fit/profile.test.ts fails when the committed file and this generator's output differ.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Profile } from '@garmin/fitsdk';
import { COMPONENT_DEFAULTS, FIELD_DEFAULTS, SUB_FIELD_DEFAULTS } from '../src/fit/profile-defaults.js';

/** Messages the reader decodes (by the profile's names). */
export const MESSAGE_NAMES = [
  'fileId',
  'fileCreator',
  'deviceInfo',
  'event',
  'record',
  'hr',
  'lap',
  'session',
  'length',
  'activity',
  'sport',
  'developerDataId',
  'fieldDescription',
  'timestampCorrelation',
  'course',
] as const;

/** Enumerated types the reader names values of. */
export const TYPE_NAMES = [
  'file',
  'sport',
  'subSport',
  'manufacturer',
  'garminProduct',
  'sourceType',
  'antplusDeviceType',
  'bleDeviceType',
  'localDeviceType',
  'event',
  'eventType',
  'lengthType',
] as const;

interface SdkSubField {
  name: string;
  type: string;
  baseType: string;
  scale: number | number[];
  offset: number | number[];
  bits: number[];
  components: string[];
  map: Array<{ name: string; value: number }>;
}

interface SdkField extends Omit<SdkSubField, 'map'> {
  num: number;
  array: boolean;
  units: string | string[];
  isAccumulated: boolean;
  subFields: SdkSubField[];
}

interface SdkMessage {
  num: number;
  name: string;
  fields: Record<string, SdkField>;
}

/** A field's own scale/offset: the SDK stores component scales in arrays; a single entry is the field's. */
function own(value: number | number[], fallback: number): number {
  if (!Array.isArray(value)) return value;
  return value.length === 1 ? value[0]! : fallback;
}

function components(
  field: Pick<SdkSubField, 'components' | 'bits' | 'scale' | 'offset'>,
  fields: Record<string, SdkField>,
): object[] {
  return field.components.map((target, i) => ({
    fieldNum: Number(target),
    bits: field.bits[i]!,
    scale: Array.isArray(field.scale) ? field.scale[i]! : field.scale,
    offset: Array.isArray(field.offset) ? field.offset[i]! : field.offset,
    accumulate: fields[target]?.isAccumulated ?? false,
  }));
}

/** `value` without the keys whose value is the default (src/fit/profile-defaults.ts fills them back in). */
function withoutDefaults(value: Record<string, unknown>, defaults: Record<string, unknown>): object {
  return Object.fromEntries(
    Object.entries(value).filter(
      ([key, entry]) =>
        !(key in defaults && defaults[key] === entry) &&
        !(Array.isArray(entry) && entry.length === 0 && key !== 'when'),
    ),
  );
}

function compactComponents(
  field: Pick<SdkSubField, 'components' | 'bits' | 'scale' | 'offset'>,
  fields: Record<string, SdkField>,
): object[] {
  return components(field, fields).map((component) =>
    withoutDefaults(component as Record<string, unknown>, COMPONENT_DEFAULTS),
  );
}

function renderField(field: SdkField, fields: Record<string, SdkField>): object {
  const byName = new Map(Object.values(fields).map((f) => [f.name, f.num]));
  return withoutDefaults(
    {
      num: field.num,
      name: field.name,
      type: field.type,
      baseType: field.baseType,
      array: field.array,
      scale: own(field.scale, 1),
      offset: own(field.offset, 0),
      units: Array.isArray(field.units) ? (field.units.length === 1 ? field.units[0] : '') : field.units,
      accumulated: field.isAccumulated,
      components: compactComponents(field, fields),
      subFields: field.subFields.map((sub) =>
        withoutDefaults(
          {
            name: sub.name,
            type: sub.type,
            baseType: sub.baseType,
            scale: own(sub.scale, 1),
            offset: own(sub.offset, 0),
            components: compactComponents(sub, fields),
            when: sub.map.map((entry) => ({ fieldNum: byName.get(entry.name)!, value: entry.value })),
          },
          SUB_FIELD_DEFAULTS,
        ),
      ),
    },
    FIELD_DEFAULTS,
  );
}

export function renderFitProfile(): string {
  const messages = Object.values(Profile.messages as unknown as Record<string, SdkMessage>);
  const out: Record<string, object> = {};
  for (const name of MESSAGE_NAMES) {
    const message = messages.find((m) => m.name === name);
    if (message === undefined) throw new Error(`the FIT profile has no message ${name}`);
    const fields: Record<number, object> = {};
    for (const field of Object.values(message.fields)) fields[field.num] = renderField(field, message.fields);
    out[name] = { num: message.num, name, fields };
  }
  const sdkTypes = Profile.types as unknown as Record<string, Record<string, string>>;
  const types: Record<string, Record<string, string>> = {};
  for (const name of TYPE_NAMES) {
    const type = sdkTypes[name];
    if (type === undefined) throw new Error(`the FIT profile has no type ${name}`);
    types[name] = type;
  }
  const { major, minor } = Profile.version;
  // One line per field and per type, so the file diffs well when the profile changes.
  const messageLines = Object.entries(out).map(([name, message]) => {
    const { num, fields } = message as { num: number; fields: Record<number, object> };
    const fieldLines = Object.entries(fields).map(
      ([fieldNum, field]) => `      ${fieldNum}: ${JSON.stringify(field)},`,
    );
    return [
      `  ${name}: {`,
      `    num: ${num},`,
      `    name: '${name}',`,
      '    fields: {',
      ...fieldLines,
      '    },',
      '  },',
    ];
  });
  const typeLines = Object.entries(types).map(([name, values]) => `  ${name}: ${JSON.stringify(values)},`);
  return [
    '// Generated by packages/ridefile/scripts/generate-fit-profile.ts from the official FIT profile',
    `// (@garmin/fitsdk, profile ${major}.${minor}). Do not edit: run \`npm run generate:fit-profile\`.`,
    "import { expandMessages, type CompactMessage } from './profile-defaults.js';",
    "import type { FitProfileMessage } from './profile-types.js';",
    '',
    `export const FIT_PROFILE_VERSION = '${major}.${minor}';`,
    '',
    `export type FitMessageName = ${MESSAGE_NAMES.map((name) => `'${name}'`).join(' | ')};`,
    '',
    `export type FitTypeName = ${TYPE_NAMES.map((name) => `'${name}'`).join(' | ')};`,
    '',
    '// Written without default values (profile-defaults.ts), which keeps the browser bundle small (issue 21).',
    'const COMPACT_MESSAGES: Readonly<Record<FitMessageName, CompactMessage>> = {',
    ...messageLines.flat(),
    '};',
    '',
    'export const FIT_MESSAGES: Readonly<Record<FitMessageName, FitProfileMessage>> =',
    '  /* @__PURE__ */ expandMessages(COMPACT_MESSAGES);',
    '',
    'export const FIT_TYPES: Readonly<Record<FitTypeName, Readonly<Record<number, string>>>> = {',
    ...typeLines,
    '};',
    '',
  ].join('\n');
}

export const PROFILE_PATH = fileURLToPath(new URL('../src/fit/profile.generated.ts', import.meta.url));

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(PROFILE_PATH, renderFitProfile());
  console.log(`wrote ${PROFILE_PATH}`);
}
