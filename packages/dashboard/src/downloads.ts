/**
 * Downloads of a ride or route (issue 7): GPX, TCX, GeoJSON and CSV, written by @rideport/ridefile's
 * writers from every stored point (drawing is downsampled, downloads never are), with the stored laps,
 * streamed chunk by chunk so a long ride is never one string in memory.
 *
 *   GET /dashboard/{rides,routes}/:id/download.{gpx,tcx,geojson,csv}
 */
import { Readable } from 'node:stream';
import { trackFromPoints, WRITE_FORMATS, WRITERS, type Track, type WriteFormat } from '@rideport/ridefile';
import type { FastifyReply } from 'fastify';
import { type AssetRow, type AssetType, attachment, type ServerContext } from '@rideport/server/web';
import { WORDS } from './access.js';
import { parseLaps } from './laps.js';

export const DOWNLOAD_FORMATS: readonly WriteFormat[] = ['gpx', 'tcx', 'geojson', 'csv'];

export const FORMAT_LABELS: Readonly<Record<WriteFormat, string>> = {
  gpx: 'GPX',
  tcx: 'TCX',
  geojson: 'GeoJSON',
  csv: 'CSV',
};

export function downloadPath(type: AssetType, id: number, format: WriteFormat): string {
  return `${WORDS[type].path}/${id}/download.${WRITE_FORMATS[format].extension}`;
}

/** The stored asset as a ridefile Track: every point, the stored laps, name, sport and device. */
export async function storedTrack<T extends AssetType>(
  context: ServerContext,
  type: T,
  row: AssetRow<T>,
): Promise<Track> {
  const points = (await context.store.assets.points(type, row.id)) ?? [];
  const trip = type === 'trip' ? (row as AssetRow<'trip'>) : null;
  const activity = trip?.activity_type ?? null;
  const colon = activity?.indexOf(':') ?? -1;
  const track = trackFromPoints(points, {
    kind: type === 'trip' ? 'ride' : 'route',
    name: row.name,
    sport: activity === null ? null : colon < 0 ? activity : activity.slice(0, colon),
    device: trip?.device ?? null,
  });
  return { ...track, laps: parseLaps(row.laps) };
}

export async function sendDownload<T extends AssetType>(
  reply: FastifyReply,
  context: ServerContext,
  type: T,
  row: AssetRow<T>,
  format: WriteFormat,
): Promise<FastifyReply> {
  const track = await storedTrack(context, type, row);
  const { extension, mediaType } = WRITE_FORMATS[format];
  return reply
    .headers({
      'content-type': `${mediaType}; charset=utf-8`,
      'content-disposition': attachment(row.name, `${WORDS[type].one}-${row.id}`, `.${extension}`),
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    })
    .send(Readable.from(WRITERS[format](track), { objectMode: false }));
}
