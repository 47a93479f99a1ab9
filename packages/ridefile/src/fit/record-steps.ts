import { BASE_TYPE_SIZE, BaseType } from './base-types.js';
import { messageByNum, messageNum } from './profile.js';
import type { FitProfileField } from './profile-types.js';

/**
 * The record fast path (issue 2: speed): a record definition is compiled once into steps that read a
 * field and write it to its column, with the profile's scale and offset.
 */

export const RECORD_NUM = messageNum('record');
export const RECORD_PROFILE = messageByNum(RECORD_NUM)!;

// Column slots a record field can fill: indexes into PointColumns.channels (x y e t c h p s d T).
const SLOT_X = 0;
const SLOT_Y = 1;
const SLOT_E = 2;
export const SLOT_T = 3;
const SLOT_C = 4;
const SLOT_H = 5;
const SLOT_P = 6;
const SLOT_S = 7;
const SLOT_D = 8;
const SLOT_TEMPERATURE = 9;

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

export /** One step of the record fast path: read a field, fill a column and/or expand its components. */
interface RecordStep {
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

function fieldPriority(profileField: FitProfileField): number {
  return profileField.name.startsWith('enhanced') ? 2 : 1;
}
