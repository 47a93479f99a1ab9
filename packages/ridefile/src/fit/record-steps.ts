import {
  SLOT_C,
  SLOT_D,
  SLOT_E,
  SLOT_H,
  SLOT_P,
  SLOT_S,
  SLOT_T,
  SLOT_TEMPERATURE,
  SLOT_X,
  SLOT_Y,
  type Column,
} from '../columns.js';
import { BASE_TYPE_SIZE, BaseType, readValue } from './base-types.js';
import { messageByNum, messageNum } from './profile.js';
import type { FitProfileField } from './profile-types.js';

/**
 * The record fast path (issue 2: speed): a record definition is compiled once into steps that read a
 * field and write it to its column, with the profile's scale and offset.
 */

export const RECORD_NUM = messageNum('record');
export const RECORD_PROFILE = messageByNum(RECORD_NUM)!;

export const CONVERT_NONE = 0;
export const CONVERT_SEMICIRCLES = 1;
export const CONVERT_SCALE = 2;

/** Record fields the reader keeps, by profile name, and the column each fills. */
export const RECORD_FIELD_SLOTS: Readonly<Record<string, number>> = {
  positionLong: SLOT_X,
  positionLat: SLOT_Y,
  altitude: SLOT_E,
  enhancedAltitude: SLOT_E,
  timestamp: SLOT_T,
  cadence: SLOT_C,
  heartRate: SLOT_H,
  power: SLOT_P,
  speed: SLOT_S,
  enhancedSpeed: SLOT_S,
  distance: SLOT_D,
  temperature: SLOT_TEMPERATURE,
};

export const SEMICIRCLES_TO_DEGREES = 180 / 2 ** 31;

/** A field as a definition message declares it. */
export interface FieldDefinition {
  num: number;
  /** offset within the message payload */
  offset: number;
  size: number;
  /** -1 when the file names a base type that does not exist */
  baseType: BaseType | -1;
  profile: FitProfileField | undefined;
}

/** One step of the record fast path: read a field, fill a column and/or expand its components. */
export interface RecordStep {
  offset: number;
  size: number;
  baseType: BaseType;
  field: FitProfileField;
  slot: number;
  conversion: typeof CONVERT_NONE | typeof CONVERT_SEMICIRCLES | typeof CONVERT_SCALE;
  scale: number;
  valueOffset: number;
  accumulated: boolean;
  /** the field's components fill other columns (compressed_speed_distance → speed, distance) */
  expands: boolean;
}

export function compileRecordSteps(fields: FieldDefinition[]): RecordStep[] {
  const steps: RecordStep[] = [];
  for (const definedField of fields) {
    const profileField = definedField.profile;
    if (
      profileField === undefined ||
      definedField.baseType === -1 ||
      definedField.baseType === BaseType.STRING
    ) {
      continue;
    }
    const slot = RECORD_FIELD_SLOTS[profileField.name] ?? -1;
    // Components that only restate the field in a wider type (altitude → enhanced_altitude) fill the
    // same column with the same value; only those reaching other columns need expanding.
    const expands = profileField.components.some((component) => {
      const target = RECORD_PROFILE.fields[component.fieldNum];
      const targetSlot = target === undefined ? undefined : RECORD_FIELD_SLOTS[target.name];
      return targetSlot !== undefined && (targetSlot !== slot || component.accumulate);
    });
    if (slot < 0 && !expands) continue;
    const baseSize = BASE_TYPE_SIZE[definedField.baseType]!;
    // A field whose size is not one value of its base type cannot be read as a scalar channel.
    if (slot >= 0 && definedField.size !== baseSize) continue;
    steps.push({
      offset: definedField.offset,
      size: definedField.size,
      baseType: definedField.baseType,
      field: profileField,
      slot,
      conversion:
        profileField.units === 'semicircles'
          ? CONVERT_SEMICIRCLES
          : profileField.scale === 1 && profileField.offset === 0
            ? CONVERT_NONE
            : CONVERT_SCALE,
      scale: profileField.scale,
      valueOffset: profileField.offset,
      accumulated: profileField.accumulated,
      expands,
    });
  }
  // enhanced_* fields (wider ranges) win over the plain ones they extend (FIT profile, record):
  // reading them last lets their valid values overwrite.
  return steps.sort((a, b) => fieldPriority(a.field) - fieldPriority(b.field));
}

/** Base types whose values are whole numbers of at most 16 bits: a Float32 column holds them exactly. */
const SMALL_INTEGER_TYPES: ReadonlySet<BaseType> = new Set([
  BaseType.ENUM,
  BaseType.BYTE,
  BaseType.UINT8,
  BaseType.UINT8Z,
  BaseType.SINT8,
  BaseType.UINT16,
  BaseType.UINT16Z,
  BaseType.SINT16,
]);

/**
 * Whether every value the step writes fits a Float32 column exactly (`PointColumns`): an unscaled small
 * integer, as the profile defines heart rate, cadence, power and temperature. For any other step (a
 * power declared 32-bit, a scaled field) the decoder widens the column when it compiles the definition.
 */
export function writesSmallIntegers(step: RecordStep): boolean {
  return step.conversion === CONVERT_NONE && SMALL_INTEGER_TYPES.has(step.baseType);
}

function fieldPriority(profileField: FitProfileField): number {
  return profileField.name.startsWith('enhanced') ? 2 : 1;
}

/**
 * A record layout compiled to straight-line code: reads every step's field of the record at `payload`
 * into row `row` of the columns (x y e t c h p s d T, as `PointColumns.channels`), stores the raw value
 * of accumulated fields in `primes` (by field number), and returns a bit per column it filled.
 */
export type RecordReader = (
  view: DataView,
  payload: number,
  row: number,
  x: Float64Array,
  y: Float64Array,
  e: Float64Array,
  t: Float64Array,
  c: Column,
  h: Column,
  p: Column,
  s: Float64Array,
  d: Float64Array,
  T: Column,
  primes: Float64Array,
  read: typeof readValue,
) => number;

const COLUMN_PARAMETERS = ['x', 'y', 'e', 't', 'c', 'h', 'p', 's', 'd', 'T'] as const;

/** Integer base types read inline: the DataView getter and the type's invalid value (FIT protocol, "Base Types"). */
const INLINE_READS: Readonly<Partial<Record<BaseType, readonly [getter: string, invalid: number]>>> = {
  [BaseType.ENUM]: ['getUint8', 0xff],
  [BaseType.UINT8]: ['getUint8', 0xff],
  [BaseType.BYTE]: ['getUint8', 0xff],
  [BaseType.SINT8]: ['getInt8', 0x7f],
  [BaseType.UINT8Z]: ['getUint8', 0],
  [BaseType.SINT16]: ['getInt16', 0x7fff],
  [BaseType.UINT16]: ['getUint16', 0xffff],
  [BaseType.UINT16Z]: ['getUint16', 0],
  [BaseType.SINT32]: ['getInt32', 0x7fffffff],
  [BaseType.UINT32]: ['getUint32', 0xffffffff],
  [BaseType.UINT32Z]: ['getUint32', 0],
};

/** Generated readers by layout; bounded, since every layout comes from an untrusted file. */
const readers = new Map<string, RecordReader>();
const MAX_CACHED_READERS = 512;
let codeGenerationAllowed = true;

/**
 * The record reader of a layout (issue 2: speed). A record is read millions of times in a few layouts,
 * so each layout becomes a function without loops, dispatch on base types or step objects, in which
 * every value stays an unboxed number, several times faster than interpreting the steps (`bench:parse`). The code is made only
 * of numbers computed here (offsets, invalid values, scales) and fixed names: nothing read from the file
 * reaches it as text. Null when the steps need the general path (component expansion) or when code
 * generation is forbidden (a browser page with a strict CSP); the decoder then interprets the steps,
 * with the same result.
 */
export function recordReader(
  steps: readonly RecordStep[],
  littleEndian: boolean,
  /** layouts the caller still lets this generate; a file with thousands of layouts is read without */
  budget: { generations: number },
): RecordReader | null {
  if (!codeGenerationAllowed || steps.length === 0 || steps.some((step) => step.expands)) return null;
  const key = `${littleEndian ? 'l' : 'b'}${steps.map((step) => `${step.offset}.${step.baseType}.${step.field.num}`).join(',')}`;
  let reader = readers.get(key);
  if (reader === undefined) {
    if (budget.generations <= 0) return null;
    budget.generations -= 1;
    const generated = generateRecordReader(steps, littleEndian);
    if (generated === null) return null;
    if (readers.size >= MAX_CACHED_READERS) readers.clear();
    readers.set(key, (reader = generated));
  }
  return reader;
}

function generateRecordReader(steps: readonly RecordStep[], littleEndian: boolean): RecordReader | null {
  const lines = ['let filled = 0;', 'let v = 0;'];
  for (const step of steps) {
    const at = `payload + ${step.offset}`;
    const inline = INLINE_READS[step.baseType];
    let valid: string;
    if (inline === undefined) {
      // Floats and 64-bit integers: the shared reader, NaN for the invalid value.
      lines.push(`v = read(view, ${at}, ${step.baseType}, ${littleEndian});`);
      valid = 'v === v';
    } else {
      const [getter, invalid] = inline;
      const endianness = getter.endsWith('8') ? '' : `, ${littleEndian}`;
      lines.push(`v = view.${getter}(${at}${endianness});`);
      valid = `v !== ${invalid}`;
    }
    const value = conversionSource(step);
    if (value === null) return null;
    lines.push(
      `if (${valid}) {`,
      step.accumulated ? `  primes[${step.field.num}] = v;` : '',
      `  ${COLUMN_PARAMETERS[step.slot]!}[row] = ${value};`,
      `  filled |= ${1 << step.slot};`,
      '}',
    );
  }
  lines.push('return filled;');
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- numbers and fixed names only; see recordReader
    return new Function(
      'view',
      'payload',
      'row',
      ...COLUMN_PARAMETERS,
      'primes',
      'read',
      lines.filter((line) => line !== '').join('\n'),
    ) as RecordReader;
  } catch {
    // Code generation is forbidden here: do not try again for every definition.
    codeGenerationAllowed = false;
    return null;
  }
}

/** The converted value of raw `v` as source, computed as the interpreted path does; null if it cannot be written. */
function conversionSource(step: RecordStep): string | null {
  if (step.conversion === CONVERT_NONE) return 'v';
  if (step.conversion === CONVERT_SEMICIRCLES) return `v * ${numberLiteral(SEMICIRCLES_TO_DEGREES)}`;
  // scaled(): (raw - offset × scale) / scale, with the product computed here exactly as it would be there.
  const product = numberLiteral(step.valueOffset * step.scale);
  const scale = numberLiteral(step.scale);
  return product === null || scale === null ? null : `(v - ${product}) / ${scale}`;
}

/** A finite number as source that reads back as exactly the same number (String() round-trips). */
function numberLiteral(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${String(value)})` : String(value);
}
