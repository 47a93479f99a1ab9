import type { TrackPoint } from '../model.js';
import { writerInput, type WriteInput, type WriteOptions } from './input.js';
import { ChunkBuilder, coordinateText, isoTime, numberText } from './text.js';

/**
 * CSV (RFC 4180, issue 3): one row per point, a header naming each column with its unit, an empty cell
 * where a point has no value. `track` numbers the tracks of the file from 1. Speed and distance are the
 * wheel sensor's, as in the points.
 */

/** The columns after `track`, each with its unit; `row` writes a point's cells in this order. */
const COLUMNS = [
  'time_utc',
  'unix_time_s',
  'longitude_deg',
  'latitude_deg',
  'elevation_m',
  'heart_rate_bpm',
  'cadence_rpm',
  'power_w',
  'speed_m_per_s',
  'distance_m',
  'temperature_c',
] as const;

/** A point's cells, in the order of COLUMNS (written out: a loop of per-column closures cost twice as much). */
function row(point: TrackPoint): string {
  const time = point.t;
  return (
    `${time === undefined ? ',' : `${isoTime(time)},${time}`},${coordinate(point.x)},${coordinate(point.y)}` +
    `,${cell(point.e)},${cell(point.h)},${cell(point.c)},${cell(point.p)},${cell(point.s)},${cell(point.d)},${cell(point.T)}`
  );
}

/**
 * The CSV header line: `track`, then each column with its unit (`time_utc`, `unix_time_s`,
 * `longitude_deg`, `latitude_deg`, `elevation_m`, `heart_rate_bpm`, `cadence_rpm`, `power_w`,
 * `speed_m_per_s`, `distance_m`, `temperature_c`).
 */
export const CSV_HEADER = ['track', ...COLUMNS].join(',');

/** `writeCsv`'s text in pieces of about 64 K characters, to stream a long track. */
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
      out.add(`${prefix}${row(point)}\r\n`);
      const chunk = out.take();
      if (chunk !== null) yield chunk;
    }
  }
  yield out.flush();
}

/** CSV (RFC 4180): the header, then one row per point of every track; empty cells where a point has no value. */
export function writeCsv(input: WriteInput, options: WriteOptions = {}): string {
  return [...csvChunks(input, options)].join('');
}

function cell(value: number | undefined): string {
  return value === undefined ? '' : numberText(value);
}

function coordinate(value: number | undefined): string {
  return value === undefined ? '' : coordinateText(value);
}
