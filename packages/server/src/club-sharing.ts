/**
 * Sharing a route with a club, and taking it out (issue 20, "Clubs"), as the legacy API, the v1 API and
 * the dashboard all do it: the store's change, and when it is refused, the same error in words and
 * status everywhere. The rules themselves are the store's (store/clubs.ts).
 */
import { forbidden, notFound, type ServerError } from './errors.js';
import type { ShareOutcome, Store } from './store/index.js';

/**
 * Shares one of the user's routes with a club they belong to. True when it is shared now, false when it
 * was already; a refusal (no such club or route, not a member, not the route's owner) is thrown.
 */
export async function shareRouteWithClub(
  store: Store,
  clubId: number,
  routeId: number,
  userId: number,
): Promise<boolean> {
  const outcome = await store.clubs.shareRoute(clubId, routeId, userId);
  switch (outcome) {
    case 'shared':
      return true;
    case 'already_shared':
      return false;
    default:
      throw shareRefusal(outcome, clubId, routeId);
  }
}

function shareRefusal(
  outcome: Exclude<ShareOutcome, 'shared' | 'already_shared'>,
  clubId: number,
  routeId: number,
): ServerError {
  switch (outcome) {
    case 'no_such_club':
      return notFound(`club ${clubId} not found`);
    case 'no_such_route':
      return notFound(`route ${routeId} not found`);
    case 'not_member':
      return forbidden(`only members of club ${clubId} can share routes with it`);
    case 'not_owner':
      return forbidden(`only the owner of route ${routeId} can share it with a club`);
  }
}

/**
 * Takes a route out of a club, as the member who shared it or an administrator of the club; a refusal
 * (no such club, a route not shared with it, anyone else) is thrown.
 */
export async function removeRouteFromClub(
  store: Store,
  clubId: number,
  routeId: number,
  actorId: number,
): Promise<void> {
  const outcome = await store.clubs.unshareRoute(clubId, routeId, actorId);
  switch (outcome) {
    case 'removed':
      return;
    case 'no_such_club':
      throw notFound(`club ${clubId} not found`);
    case 'not_shared':
      throw notFound(`route ${routeId} is not shared with club ${clubId}`);
    case 'not_allowed':
      throw forbidden(
        `only the member who shared route ${routeId} or an administrator of club ${clubId} can remove it`,
      );
  }
}
