/**
 * Which rides and routes the dashboard shows (issue 7: "only the user's own, 404/403 like the API",
 * docs/contributors/decisions.md §1 "Failures"): an unknown id is 404, someone else's ride or route 403, whatever its
 * visibility (the dashboard is one's own library, not a way to browse others').
 */
import {
  type AssetRow,
  type AssetType,
  forbidden,
  notFound,
  type ServerContext,
  type UserRow,
} from '@rideport/server/web';

export const WORDS = {
  trip: { one: 'ride', many: 'rides', title: 'Ride', titles: 'Rides', path: '/dashboard/rides' },
  route: { one: 'route', many: 'routes', title: 'Route', titles: 'Routes', path: '/dashboard/routes' },
} as const;

export async function ownAsset<T extends AssetType>(
  context: ServerContext,
  user: UserRow,
  type: T,
  id: number,
): Promise<AssetRow<T>> {
  const row = await context.store.assets.find(type, id);
  if (row === undefined) throw notFound(`There is no such ${WORDS[type].one}.`);
  if (row.user_id !== user.id) throw forbidden(`This ${WORDS[type].one} belongs to someone else.`);
  return row;
}

/** The label of the folder or device each trip was synced from, when the host runs a sync engine. */
export function syncSources(context: ServerContext, tripIds: readonly number[]): Map<number, string> {
  const { localSync } = context.options;
  if (localSync === null || tripIds.length === 0) return new Map();
  try {
    return localSync.tripSources(tripIds);
  } catch {
    // The sync engine's ledger is a nicety here: the page shows "—" rather than failing.
    return new Map();
  }
}
