/**
 * Routes and trips for tests, made the way the upload queue will make them: a real file parsed by
 * @rideport/ridefile, each track stored through the data-access layer (issue 4: "tests create routes
 * and trips through the data layer using @rideport/ridefile on corpus files").
 */
import { parseRideFile, type Track } from '@rideport/ridefile';
import type { AssetType } from '../db/schema.js';
import type { AssetRow } from '../store/assets.js';
import type { AssetMetadata, CreatedAsset } from '../store/index.js';
import type { JsonText } from '../store/record-body.js';
import type { TestServer } from './server.js';

export function tracksOf(bytes: Uint8Array, filename: string): Track[] {
  return parseRideFile(bytes, { filename }).tracks;
}

/** Every track of the file, as routes and trips of `userId`. */
export async function storeFile(
  server: TestServer,
  userId: number,
  bytes: Uint8Array,
  filename: string,
  metadata: AssetMetadata = {},
): Promise<CreatedAsset[]> {
  const created: CreatedAsset[] = [];
  for (const track of tracksOf(bytes, filename)) {
    created.push(await server.store.assets.createFromTrack(userId, track, metadata));
  }
  return created;
}

/** The one track of a file that holds exactly one. */
export function onlyTrack(bytes: Uint8Array, filename: string): Track {
  const tracks = tracksOf(bytes, filename);
  if (tracks.length !== 1) throw new Error(`${filename} holds ${tracks.length} tracks, not one`);
  return tracks[0]!;
}

/** An asset's row and its points' JSON text, as the single-record endpoints read them. */
export async function storedAsset<T extends AssetType>(
  server: TestServer,
  type: T,
  id: number,
): Promise<{ row: AssetRow<T>; points: string } | undefined> {
  const row = await server.store.assets.find(type, id);
  const found = await server.store.assets.findRecordWithPoints(type, id);
  return row === undefined || found === undefined ? undefined : { row, points: jsonTextString(found.points) };
}

/** JSON text the store gave, as bytes or as pieces rendered when asked for, as one string. */
export function jsonTextString(json: JsonText): string {
  return Buffer.isBuffer(json) ? json.toString('utf8') : [...json].join('');
}
