import type { TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import { ChunkBuilder, isoTime } from './text.js';

/**
 * CSV (RFC 4180, issue 3): one row per point, a header naming each column with its unit, an empty cell
 * where a point has no value. `track` numbers the tracks of the file from 1. Speed and distance are the
 * wheel sensor's, as in the points.
 */

const COLUMNS: ReadonlyArray<readonly [string, (point: TrackPoint) => string]> = [
  ['time_utc', (point) => (point.t === undefined ? '' : isoTime(point.t))],
  ['unix_time_s', (point) => cell(point.t)],
  ['longitude_deg', (point) => cell(point.x)],
  ['latitude_deg', (point) => cell(point.y)],
  ['elevation_m', (point) => cell(point.e)],
  ['heart_rate_bpm', (point) => cell(point.h)],
  ['cadence_rpm', (point) => cell(point.c)],
  ['power_w', (point) => cell(point.p)],
  ['speed_m_per_s', (point) => cell(point.s)],
  ['distance_m', (point) => cell(point.d)],
  ['temperature_c', (point) => cell(point.T)],
];

export const CSV_HEADER = ['track', ...COLUMNS.map(([name]) => name)].join(',');

export function* csvChunks(
  input: WriteInput,
  options: WriteOptions = {},
): Generator<string, void, undefined> {
  const { tracks } = writerInput(input, options);
  const out = new ChunkBuilder();
  out.add(`${CSV_HEADER}\r\n`);
  for (let index = 0; index < tracks.length; index++) {
    const prefix = `${index + 1},`;
    for (const point of tracks[index]!.points) {
      let row = prefix;
      for (let c = 0; c < COLUMNS.length; c++) row += (c === 0 ? '' : ',') + COLUMNS[c]![1](point);
      out.add(`${row}\r\n`);
      const chunk = out.take();
      if (chunk !== null) yield chunk;
    }
  }
  yield out.flush();
}

export function writeCsv(input: WriteInput, options: WriteOptions = {}): string {
  return [...csvChunks(input, options)].join('');
}

function cell(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}
