/**
 * FIT base types (FIT protocol, "Base Types"): the storage of every field. Byte 0 of a field
 * definition's base type holds the number in its low five bits; the profile names the same types.
 */
export const BaseType = {
  ENUM: 0x00,
  SINT8: 0x01,
  UINT8: 0x02,
  SINT16: 0x03,
  UINT16: 0x04,
  SINT32: 0x05,
  UINT32: 0x06,
  STRING: 0x07,
  FLOAT32: 0x08,
  FLOAT64: 0x09,
  UINT8Z: 0x0a,
  UINT16Z: 0x0b,
  UINT32Z: 0x0c,
  BYTE: 0x0d,
  SINT64: 0x0e,
  UINT64: 0x0f,
  UINT64Z: 0x10,
} as const;

export type BaseType = (typeof BaseType)[keyof typeof BaseType];

/** Size in bytes of each base type, indexed by its number. */
export const BASE_TYPE_SIZE: readonly number[] = [1, 1, 1, 2, 2, 4, 4, 1, 4, 8, 1, 2, 4, 1, 8, 8, 8];

export function isKnownBaseType(value: number): value is BaseType {
  return value >= 0 && value <= 0x10;
}

/**
 * Reads one value of `type` at `offset`; NaN when it holds the type's "invalid" value. 64-bit integers
 * are read as doubles (exact up to 2^53; no field this reader uses is wider). The common record types
 * are handled here, small enough to be inlined into the record loop; the rest in `readRareValue`.
 */
export function readValue(view: DataView, offset: number, type: BaseType, littleEndian: boolean): number {
  let value: number;
  switch (type) {
    case BaseType.ENUM:
    case BaseType.UINT8:
    case BaseType.BYTE:
      value = view.getUint8(offset);
      return value === 0xff ? NaN : value;
    case BaseType.UINT16:
      value = view.getUint16(offset, littleEndian);
      return value === 0xffff ? NaN : value;
    case BaseType.SINT32:
      value = view.getInt32(offset, littleEndian);
      return value === 0x7fffffff ? NaN : value;
    case BaseType.UINT32:
      value = view.getUint32(offset, littleEndian);
      return value === 0xffffffff ? NaN : value;
    default:
      return readRareValue(view, offset, type, littleEndian);
  }
}

function readRareValue(view: DataView, offset: number, type: BaseType, littleEndian: boolean): number {
  switch (type) {
    case BaseType.SINT8: {
      const value = view.getInt8(offset);
      return value === 0x7f ? NaN : value;
    }
    case BaseType.UINT8Z: {
      const value = view.getUint8(offset);
      return value === 0 ? NaN : value;
    }
    case BaseType.SINT16: {
      const value = view.getInt16(offset, littleEndian);
      return value === 0x7fff ? NaN : value;
    }
    case BaseType.UINT16Z: {
      const value = view.getUint16(offset, littleEndian);
      return value === 0 ? NaN : value;
    }
    case BaseType.UINT32Z: {
      const value = view.getUint32(offset, littleEndian);
      return value === 0 ? NaN : value;
    }
    case BaseType.FLOAT32: {
      if (view.getUint32(offset, littleEndian) === 0xffffffff) return NaN;
      const value = view.getFloat32(offset, littleEndian);
      return Number.isFinite(value) ? value : NaN;
    }
    case BaseType.FLOAT64: {
      const value = view.getFloat64(offset, littleEndian);
      return Number.isFinite(value) ? value : NaN;
    }
    case BaseType.SINT64: {
      const value = view.getBigInt64(offset, littleEndian);
      return value === 0x7fffffffffffffffn ? NaN : Number(value);
    }
    case BaseType.UINT64: {
      const value = view.getBigUint64(offset, littleEndian);
      return value === 0xffffffffffffffffn ? NaN : Number(value);
    }
    case BaseType.UINT64Z: {
      const value = view.getBigUint64(offset, littleEndian);
      return value === 0n ? NaN : Number(value);
    }
    default:
      // ENUM, UINT8, BYTE, UINT16, SINT32 and UINT32 are read by readValue; STRING holds no number.
      return NaN;
  }
}
