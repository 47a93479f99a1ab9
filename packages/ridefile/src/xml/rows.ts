import type { PointColumns } from '../columns.js';
import { isValidLatitude, isValidLongitude } from '../geo.js';
import { parseNumber } from './values.js';

/**
 * Row helpers shared by the GPX, TCX and KML readers (issue 2). Readers write values straight into
 * `PointColumns`; these keep the three formats' rules the same: a position is kept only when both halves
 * are readable and in range, a malformed value is just absent, and a row left without any value is dropped.
 */

/** Latitude in degrees, or NaN when unreadable or outside -90..90 (the row keeps its other values). */
export function parseLatitude(text: string): number {
  return latitudeOrNaN(parseNumber(text));
}

/** Longitude in degrees, or NaN when unreadable or outside -180..180. */
export function parseLongitude(text: string): number {
  return longitudeOrNaN(parseNumber(text));
}

/** `degrees` when it is a latitude (-90..90), else NaN. */
export function latitudeOrNaN(degrees: number): number {
  return isValidLatitude(degrees) ? degrees : NaN;
}

/** `degrees` when it is a longitude (-180..180), else NaN. */
export function longitudeOrNaN(degrees: number): number {
  return isValidLongitude(degrees) ? degrees : NaN;
}

/** Writes `value` into `column` at `row` unless it is absent, so a later unreadable duplicate keeps the first. */
export function setValue(column: Float64Array, row: number, value: number): void {
  if (!Number.isNaN(value)) column[row] = value;
}

/** `setValue` for any channel by slot, including the Float32 ones that may have to widen (`PointColumns.set`). */
export function setChannelValue(columns: PointColumns, slot: number, row: number, value: number): void {
  if (!Number.isNaN(value)) columns.set(slot, row, value);
}

/**
 * Finishes a row a reader filled: half a position (a latitude without a longitude) is no position, and a
 * row with no value at all is dropped when it is the last one. Returns whether the row was kept.
 */
export function endRow(columns: PointColumns, row: number): boolean {
  clearHalfPosition(columns, row);
  if (columns.hasAnyValue(row)) return true;
  if (row === columns.length - 1) columns.dropLast();
  return false;
}

/**
 * Ends the rows from `from` to the last one at once (KML fills them out of order): fixes half positions and
 * moves the rows that hold something down over the empty ones, keeping their order.
 */
export function endRowsFrom(columns: PointColumns, from: number): void {
  for (let row = from; row < columns.length; row++) clearHalfPosition(columns, row);
  columns.compactFrom(from);
}

/** Whether any row has a time: GPX and KML tracks with times are rides, the others routes. */
export function hasAnyTime(columns: PointColumns): boolean {
  const { t } = columns;
  const rows = columns.length;
  for (let row = 0; row < rows; row++) {
    if (!Number.isNaN(t[row]!)) return true;
  }
  return false;
}

function clearHalfPosition(columns: PointColumns, row: number): void {
  if (Number.isNaN(columns.x[row]!) !== Number.isNaN(columns.y[row]!)) {
    columns.x[row] = NaN;
    columns.y[row] = NaN;
  }
}
