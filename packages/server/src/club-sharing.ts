/**
 * What sharing a route with a club, and taking it out, answers in words (issue 20, "Clubs"): the same
 * sentences and statuses for the legacy API and the dashboard. The rules themselves are the store's
 * (store/clubs.ts).
 */
import { forbidden, notFound, type ApiError } from './errors.js';
import type { ShareOutcome, UnshareOutcome } from './store/index.js';

/** The error of a refused share, or null when the route is (now or already) shared. */
export function shareRefusal(outcome: ShareOutcome, clubId: number, routeId: number): ApiError | null {
  switch (outcome) {
    case 'shared':
    case 'already_shared':
      return null;
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

/** The error of a refused removal, or null when the route was taken out of the club. */
export function unshareRefusal(outcome: UnshareOutcome, clubId: number, routeId: number): ApiError | null {
  switch (outcome) {
    case 'removed':
      return null;
    case 'no_such_club':
      return notFound(`club ${clubId} not found`);
    case 'not_shared':
      return notFound(`route ${routeId} is not shared with club ${clubId}`);
    case 'not_allowed':
      return forbidden(
        `only the member who shared route ${routeId} or an administrator of club ${clubId} can remove it`,
      );
  }
}
