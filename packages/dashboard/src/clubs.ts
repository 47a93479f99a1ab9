/**
 * Clubs on the dashboard (issue 20, "Clubs"; docs/contributors/decisions.md §5: "its routes are those its members share
 * with it"). Plain forms that work without JavaScript, each POST with the CSRF token (pages/csrf.ts);
 * the rules are the store's (store/clubs.ts), the refusals' words club-sharing.ts's.
 *
 *   the route page's "Clubs" section   which clubs the route is in; share it with one of mine; unshare
 *   POST /dashboard/routes/{id}/clubs          share (field club_id), back to the route
 *   POST /dashboard/routes/{id}/clubs/remove   unshare (field club_id), back to the route
 *   GET  /dashboard/clubs/{id}                 the club's routes, for its members
 *   POST /dashboard/clubs/{id}/routes/remove   an administrator takes one out (field route_id)
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  csrfField,
  csrfToken,
  forbidden,
  FormFields,
  html,
  ID_RANGE,
  notFound,
  removeRouteFromClub,
  type SafeHtml,
  sendPage,
  type ServerContext,
  shareRouteWithClub,
  type UserRow,
} from '@rideport/server/web';
import { ownAsset, WORDS } from './access.js';

/** The most routes the club page lists: a club page is a glance, the API pages through them all. */
export const CLUB_PAGE_ROUTES = 200;

export const clubPath = (clubId: number): string => `/dashboard/clubs/${clubId}`;
export const routeClubsPath = (routeId: number | ':id'): string => `${WORDS.route.path}/${routeId}/clubs`;

/** The route page's section: the clubs it is shared with, and a form to share it with another. */
export async function routeClubsSection(
  request: FastifyRequest,
  context: ServerContext,
  user: UserRow,
  routeId: number,
  token: string,
): Promise<SafeHtml> {
  const shared = await context.store.clubs.sharedWith(routeId);
  const mine = await context.store.clubs.ofMember(user.id);
  const others = mine.filter((club) => !shared.some((sharedClub) => sharedClub.id === club.id));
  const done = (request.query as Record<string, unknown> | undefined)?.['club'];
  return html`<section aria-labelledby="clubs-heading">
    <h2 id="clubs-heading">Clubs</h2>
    ${done === 'shared' && html`<p class="notice" role="status">Shared with the club.</p>`}
    ${done === 'removed' && html`<p class="notice" role="status">Taken out of the club.</p>`}
    ${
      shared.length === 0
        ? html`<p>This route is not shared with any club.</p>`
        : html`<p>Every member of these clubs sees this route, whatever its visibility:</p>
            <ul>
              ${shared.map(
                (club) =>
                  html`<li>
                    <a href="${clubPath(club.id)}">${club.name}</a>
                    <form class="inline" method="post" action="${routeClubsPath(routeId)}/remove">
                      ${csrfField(token)}
                      <input type="hidden" name="club_id" value="${club.id}" />
                      <button type="submit">Unshare</button>
                    </form>
                  </li>`,
              )}
            </ul>`
    }
    ${
      others.length > 0
        ? html`<form method="post" action="${routeClubsPath(routeId)}">
            ${csrfField(token)}
            <label for="share-club">Share with one of my clubs</label>
            <select id="share-club" name="club_id">
              ${others.map((club) => html`<option value="${club.id}">${club.name}</option>`)}
            </select>
            <button type="submit">Share</button>
          </form>`
        : mine.length === 0 && html`<p>You belong to no club, so there is none to share it with.</p>`
    }
  </section>`;
}

function clubIdField(request: FastifyRequest): number {
  return new FormFields(request.body).wholeNumber('club_id', ID_RANGE);
}

/**
 * POST /dashboard/routes/{id}/clubs (`share`) and …/clubs/remove (`unshare`): the owner shares their
 * route with one of their clubs, or takes it out; back to the route's page, which says so.
 */
export async function shareFromPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  routeId: number,
  action: 'share' | 'unshare',
): Promise<FastifyReply> {
  await ownAsset(context, user, 'route', routeId);
  const clubId = clubIdField(request);
  if (action === 'share') await shareRouteWithClub(context.store, clubId, routeId, user.id);
  else await removeRouteFromClub(context.store, clubId, routeId, user.id);
  const done = action === 'share' ? 'shared' : 'removed';
  return reply.redirect(`${WORDS.route.path}/${routeId}?club=${done}#clubs-heading`, 303);
}

/** The club, for one of its members (403 in words for anyone else, 404 for no such club). */
async function memberClub(context: ServerContext, user: UserRow, clubId: number) {
  const club = await context.store.clubs.find(clubId);
  if (club === undefined) throw notFound('There is no such club.');
  if (!(await context.store.clubs.seesAsMember(clubId, user.id))) {
    throw forbidden('Only members of this club can see its page.');
  }
  return club;
}

/** GET /dashboard/clubs/{id}: the routes the members share; administrators can take each out. */
export async function clubPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  clubId: number,
): Promise<FastifyReply> {
  const club = await memberClub(context, user, clubId);
  const admin = await context.store.clubs.administers(clubId, user.id);
  const { total } = await context.store.clubs.listRouteIds(clubId, { offset: 0, limit: 1 }, 'members');
  const routes = await context.store.clubs.routesForMembers(clubId, CLUB_PAGE_ROUTES);
  const token = csrfToken(request, reply);
  const removed = (request.query as Record<string, unknown> | undefined)?.['removed'] === '1';
  return sendPage(reply, 200, {
    title: club.name,
    user,
    csrfToken: token,
    current: 'routes',
    body: html`<h1>${club.name}</h1>
      ${club.description !== null && html`<p class="description">${club.description}</p>`}
      ${removed && html`<p class="notice" role="status">Taken out of the club.</p>`}
      <p>
        ${club.member_count === 1 ? '1 member' : `${club.member_count} members`};
        ${total === 1 ? '1 route shared' : `${total} routes shared`} with the
        club${total > routes.length ? `, the ${routes.length} most recently shared below` : ''}.
      </p>
      ${
        routes.length === 0
          ? html`<p>No member has shared a route with this club yet.</p>`
          : html`<ul class="club-routes">
              ${routes.map(
                (route) =>
                  html`<li>
                    ${
                      route.user_id === user.id
                        ? html`<a href="${WORDS.route.path}/${route.id}">${route.name}</a>`
                        : route.name
                    }
                    ${
                      admin &&
                      html`<form class="inline" method="post" action="${clubPath(clubId)}/routes/remove">
                        ${csrfField(token)}
                        <input type="hidden" name="route_id" value="${route.id}" />
                        <button type="submit">Remove from the club</button>
                      </form>`
                    }
                  </li>`,
              )}
            </ul>`
      }`,
  });
}

/** POST /dashboard/clubs/{id}/routes/remove: an administrator takes a shared route out. */
export async function removeFromClubPage(
  request: FastifyRequest,
  reply: FastifyReply,
  context: ServerContext,
  user: UserRow,
  clubId: number,
): Promise<FastifyReply> {
  await memberClub(context, user, clubId);
  const routeId = new FormFields(request.body).wholeNumber('route_id', ID_RANGE);
  await removeRouteFromClub(context.store, clubId, routeId, user.id);
  return reply.redirect(`${clubPath(clubId)}?removed=1`, 303);
}
