/**
 * "Create a ride from raw points" (docs/integrators/api.md, legacy endpoints; docs/contributors/decisions.md §5): `POST
 * /trips.json` (or `.js`) with a JSON or form body holding `track_points`. Unlike a file upload it is
 * processed at once: the points are checked (legacy/point-input.ts: every problem in one 422), made
 * into a Track by @rideport/ridefile's trackFromPoints (the summary the parser would give the same
 * points), and stored as a trip of the caller through the data-access layer, in one transaction with
 * its change log. The answer is 200 `{"success": 1, "trip": {…}}` with the trip's legacy record
 * (legacy/records.ts), without `track_points`: the caller sent them, and may have sent 200,000.
 *
 * The points do not say which sport they are, so the trip's `activity_type` is null, as for a GPX file
 * that does not say (docs/contributors/decisions.md §2: "a value that the file does not give is null"); its name, when
 * `trip[name]` is not given, is made as for uploads (the part of the day, "Morning Activity": activity-words.ts). `trip[visibility]` defaults
 * to private, as every new asset (store/assets.ts).
 */
import { trackFromPoints } from '@rideport/ridefile';
import type { ServerContext } from '../context.js';
import { unprocessable } from '../errors.js';
import type { AssetMetadata } from '../store/index.js';
import { readRideInput } from './point-input.js';
import { legacyAssetUrl, legacyUrlPrefix, parsedRecord } from './records.js';
import type { LegacyAnswer, LegacyCall } from './route.js';
import { signedIn } from './users.js';

export async function createRideFromPoints(call: LegacyCall, context: ServerContext): Promise<LegacyAnswer> {
  const caller = signedIn(call);
  const input = readRideInput(call.params, {
    maxPoints: context.options.limits.pointsPerRequest,
    nowSeconds: Math.floor(context.options.clock() / 1000),
  });
  if (!input.ok) throw unprocessable(input.problems);
  // Always a ride: the endpoint creates trips (readRideInput refuses points without any time).
  const track = trackFromPoints(input.points, { kind: 'ride' });
  const metadata: AssetMetadata = {
    name: input.name,
    description: input.description,
    ...(input.visibility === undefined ? {} : { visibility: input.visibility }),
  };
  const created = await context.store.assets.createFromTrack(caller.user.id, track, metadata);
  const url = legacyAssetUrl(legacyUrlPrefix(context.options.baseUrl), 'trip');
  const [record] = await context.store.assets.recordsByIds('trip', [created.row.id], url);
  // The trip was stored just above; only a delete in between could take it away.
  if (record === undefined) throw new Error(`trip ${created.row.id} disappeared after it was created`);
  return { body: { success: 1, trip: parsedRecord(record) } };
}
