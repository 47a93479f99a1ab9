import { BASE_TYPE_SIZE, BaseType } from './base-types.js';
import type { FitComponent, FitProfileField, FitProfileMessage } from './profile-types.js';

/**
 * Component expansion (FIT profile, "Components"): a field whose bits hold other fields, e.g.
 * record.compressed_speed_distance → speed (12 bits) and distance (12 bits, accumulated), or
 * hr.event_timestamp_12 → ten event timestamps.
 */

/** Running values of accumulated fields: key (mesgNum << 8 | fieldNum) → running value and last raw value. */
export class Accumulators {
  readonly #values = new Map<number, { value: number; last: number }>();

  /**
   * Expands `components` from `source`: bit fields taken least-significant first, each scaled into its
   * target field; accumulated targets count on from their last value.
   */
  expand(
    mesgNum: number,
    components: readonly FitComponent[],
    source: Uint8Array,
    emit: (targetNum: number, value: number) => void,
  ): void {
    const totalBits = source.length * 8;
    let bit = 0;
    for (const component of components) {
      if (bit + component.bits > totalBits) break;
      let raw = readBits(source, bit, component.bits);
      bit += component.bits;
      if (component.accumulate)
        raw = this.#accumulate((mesgNum << 8) | component.fieldNum, raw, component.bits);
      emit(component.fieldNum, raw / component.scale - component.offset);
    }
  }

  /**
   * A value of an accumulated field read in full resets the running value, in the units of the
   * component that accumulates into it (so a later compressed distance counts on from it).
   */
  prime(message: FitProfileMessage, target: FitProfileField, rawValue: number): void {
    const component = componentTargeting(message, target.num);
    if (component === undefined) return;
    const units = rawValue / target.scale - target.offset;
    const value = (units + component.offset) * component.scale;
    const key = (message.num << 8) | target.num;
    const accumulator = this.#values.get(key);
    if (accumulator === undefined) this.#values.set(key, { value, last: value });
    else accumulator.value = accumulator.last = value;
  }

  #accumulate(key: number, raw: number, bits: number): number {
    const accumulator = this.#values.get(key);
    if (accumulator === undefined) {
      this.#values.set(key, { value: raw, last: raw });
      return raw;
    }
    const modulus = 2 ** bits;
    // (raw - last) modulo 2^bits, without 32-bit overflow for wide components.
    const delta = (((raw - accumulator.last) % modulus) + modulus) % modulus;
    accumulator.value += delta;
    accumulator.last = raw;
    return accumulator.value;
  }
}

const componentTargetCache = new Map<number, FitComponent | null>();

function componentTargeting(message: FitProfileMessage, targetNum: number): FitComponent | undefined {
  const key = (message.num << 8) | targetNum;
  let found = componentTargetCache.get(key);
  if (found === undefined) {
    found = null;
    for (const candidate of Object.values(message.fields)) {
      const component = candidate.components.find((c) => c.fieldNum === targetNum && c.accumulate);
      if (component !== undefined) {
        found = component;
        break;
      }
    }
    componentTargetCache.set(key, found);
  }
  return found ?? undefined;
}

/** The bytes of a field as a little-endian bit source for component expansion; null when invalid. */
export function componentSource(
  bytes: Uint8Array,
  at: number,
  size: number,
  baseType: BaseType,
  littleEndian: boolean,
): Uint8Array | null {
  const elementSize = BASE_TYPE_SIZE[baseType]!;
  if (size === 0 || size % elementSize !== 0) return null;
  const source = bytes.slice(at, at + size);
  if (!littleEndian && elementSize > 1) {
    for (let start = 0; start < size; start += elementSize)
      source.subarray(start, start + elementSize).reverse();
  }
  if (isInvalidSource(source, baseType, elementSize)) return null;
  return source;
}

/** Every element holds its base type's invalid value (all 0xFF bytes, or 0x7F… for signed types). */
function isInvalidSource(source: Uint8Array, baseType: BaseType, elementSize: number): boolean {
  const zeroInvalid =
    baseType === BaseType.UINT8Z || baseType === BaseType.UINT16Z || baseType === BaseType.UINT32Z;
  const signed = baseType === BaseType.SINT8 || baseType === BaseType.SINT16 || baseType === BaseType.SINT32;
  for (let start = 0; start < source.length; start += elementSize) {
    for (let i = 0; i < elementSize; i++) {
      const byte = source[start + i]!;
      const invalidByte = zeroInvalid ? 0 : signed && i === elementSize - 1 ? 0x7f : 0xff;
      if (byte !== invalidByte) return false;
    }
  }
  return true;
}

/** `count` bits starting at bit `start`, least-significant bit of byte 0 first. */
function readBits(source: Uint8Array, start: number, count: number): number {
  let value = 0;
  for (let i = 0; i < count; i++) {
    const bit = start + i;
    if ((source[bit >> 3]! >> (bit & 7)) & 1) value += 2 ** i;
  }
  return value;
}
