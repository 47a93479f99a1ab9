/**
 * Clubs (docs/contributors/decisions.md §5, "A club is an organization; its routes are those its members share with
 * it"): an organization account seen as a club, with its member count, and the routes shared with it
 * (table club_routes, migration 003).
 *
 * Rules kept here, beside the SQL that depends on them:
 * - Only a member of the club (admin or member) may share a route, and only a route they own: sharing
 *   shows the route to every member, so nobody can expose another user's route that way.
 * - A club's routes are the routes shared by its current members: when a member leaves, the routes
 *   they shared leave with them (the rows stay, and count again if they rejoin).
 * - Members see every route shared with the club, whatever its visibility (that is what sharing is
 *   for); anyone else sees only the public ones (docs/contributors/decisions.md §5, lists: "others see only public items").
 *   The club's own account counts as a member of itself.
 * - A shared route leaves the club when the member who shared it unshares it, or when an
 *   administrator of the club (or the club's own account, or `rideport admin unshare-route`) removes
 *   it (issue 20, "Clubs"); nobody else may take it out.
 */
import type { Kysely } from 'kysely';
import type { Database, MembershipRole } from '../db/schema.js';
import type { Page } from './assets.js';
import type { StoreContext } from './context.js';

/** A club: an organization account, with how many people belong to it. */
export interface ClubRow {
  id: number;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
  /** administrators and members */
  member_count: number;
}

/** Which of a club's routes a viewer gets: all shared ones (members) or only the public ones. */
export type ClubRouteScope = 'members' | 'public';

export type ShareOutcome =
  'shared' | 'already_shared' | 'no_such_club' | 'no_such_route' | 'not_member' | 'not_owner';

export type UnshareOutcome = 'removed' | 'not_shared' | 'no_such_club' | 'not_allowed';

/** A club a route is shared with, as the route's page names it. */
export interface SharedClub {
  id: number;
  name: string;
}

export class Clubs {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** The club with this id; undefined when there is none (or the id is a person's). */
  async find(id: number): Promise<ClubRow | undefined> {
    const row = await this.#clubs().where('u.id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : withCount(row);
  }

  /** The clubs `userId` belongs to (any role), by name. */
  async ofMember(userId: number): Promise<ClubRow[]> {
    const rows = await this.#clubsOf(userId).orderBy('u.name').orderBy('u.id').execute();
    return rows.map(withCount);
  }

  /** One page of the clubs `userId` belongs to, by name (then id), and how many there are in all. */
  async pageOfMember(userId: number, page: Page): Promise<{ clubs: ClubRow[]; total: number }> {
    const { total } = await this.#context.db
      .selectFrom('memberships')
      .innerJoin('users as u', 'u.id', 'memberships.organization_id')
      .where('memberships.user_id', '=', userId)
      .where('u.kind', '=', 'organization')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    if (total <= page.offset) return { clubs: [], total: total };
    const rows = await this.#clubsOf(userId)
      .orderBy('u.name')
      .orderBy('u.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { clubs: rows.map(withCount), total: total };
  }

  #clubsOf(userId: number) {
    return this.#clubs()
      .innerJoin('memberships as mine', 'mine.organization_id', 'u.id')
      .where('mine.user_id', '=', userId);
  }

  /** Whether `userId` sees the club as a member does: a member or admin, or the club's own account. */
  async seesAsMember(clubId: number, userId: number): Promise<boolean> {
    if (clubId === userId) return true;
    const row = await this.#context.db
      .selectFrom('memberships')
      .select('user_id')
      .where('organization_id', '=', clubId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Takes `userId` out of the club (any role). The routes they shared stay recorded but are no longer
   * the club's (see the rules above); false when they were not in it.
   */
  async removeMember(clubId: number, userId: number): Promise<boolean> {
    const result = await this.#context.db
      .deleteFrom('memberships')
      .where('organization_id', '=', clubId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Shares `routeId` with the club, as `userId` (see the rules above), in one transaction. */
  shareRoute(clubId: number, routeId: number, userId: number): Promise<ShareOutcome> {
    return this.#context.db.transaction().execute(async (trx) => {
      if (!(await isClub(trx, clubId))) return 'no_such_club';
      const route = await trx
        .selectFrom('routes')
        .select('user_id')
        .where('id', '=', routeId)
        .executeTakeFirst();
      if (route === undefined) return 'no_such_route';
      if ((await roleIn(trx, clubId, userId)) === undefined) return 'not_member';
      if (route.user_id !== userId) return 'not_owner';
      const inserted = await trx
        .insertInto('club_routes')
        .values({
          organization_id: clubId,
          route_id: routeId,
          shared_by: userId,
          created_at: this.#context.clock(),
        })
        .onConflict((conflict) => conflict.columns(['organization_id', 'route_id']).doNothing())
        .executeTakeFirst();
      return inserted.numInsertedOrUpdatedRows === 0n ? 'already_shared' : 'shared';
    });
  }

  /**
   * Takes `routeId` out of the club. `actorId` is who asks: the member who shared it, an administrator
   * of the club or the club's own account may (see the rules above); null is `rideport admin`, which
   * may always. One transaction, so a check and the removal see the same rows.
   */
  unshareRoute(clubId: number, routeId: number, actorId: number | null): Promise<UnshareOutcome> {
    return this.#context.db.transaction().execute(async (trx) => {
      if (!(await isClub(trx, clubId))) return 'no_such_club';
      const shared = await trx
        .selectFrom('club_routes')
        .select('shared_by')
        .where('organization_id', '=', clubId)
        .where('route_id', '=', routeId)
        .executeTakeFirst();
      if (shared === undefined) return 'not_shared';
      const mayRemove =
        actorId === null ||
        actorId === clubId ||
        actorId === shared.shared_by ||
        (await roleIn(trx, clubId, actorId)) === 'admin';
      if (!mayRemove) return 'not_allowed';
      await trx
        .deleteFrom('club_routes')
        .where('organization_id', '=', clubId)
        .where('route_id', '=', routeId)
        .execute();
      return 'removed';
    });
  }

  /** The clubs `routeId` counts in (shared by a current member, see the rules above), by name. */
  async sharedWith(routeId: number): Promise<SharedClub[]> {
    return this.#countingShares()
      .innerJoin('users as u', 'u.id', 'cr.organization_id')
      .select(['u.id', 'u.name'])
      .where('cr.route_id', '=', routeId)
      .orderBy('u.name')
      .orderBy('u.id')
      .execute();
  }

  /** Whether `userId` administers the club: an admin member, or the club's own account. */
  async administers(clubId: number, userId: number): Promise<boolean> {
    return clubId === userId || (await roleIn(this.#context.db, clubId, userId)) === 'admin';
  }

  /**
   * One page of the ids of the club's routes a viewer sees (`scope`), most recently shared first (then
   * newest id), and how many there are in all.
   */
  async listRouteIds(
    clubId: number,
    page: Page,
    scope: ClubRouteScope,
  ): Promise<{ ids: number[]; total: number }> {
    const counted = await this.#sharedRoutes(clubId, scope)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    const total = counted.total;
    if (total <= page.offset) return { ids: [], total };
    const rows = await this.#sharedRoutes(clubId, scope)
      .select('r.id')
      .orderBy('cr.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { ids: rows.map((row) => row.id), total };
  }

  /**
   * The first `limit` of the club's routes as members see them (the club's dashboard page), with who
   * owns each, in the order of listRouteIds.
   */
  async routesForMembers(
    clubId: number,
    limit: number,
  ): Promise<Array<{ id: number; name: string; user_id: number }>> {
    return this.#sharedRoutes(clubId, 'members')
      .select(['r.id', 'r.name', 'r.user_id'])
      .orderBy('cr.created_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Whether `userId` sees `routeId` through a club: it is shared (by a current member) with a club that
   * `userId` belongs to, or with `userId`'s own club account. A route listed to a member must also open
   * for them.
   */
  async routeSharedWith(routeId: number, userId: number): Promise<boolean> {
    const row = await this.#countingShares()
      .select('cr.route_id')
      .where('cr.route_id', '=', routeId)
      .where((eb) =>
        eb.or([
          eb('cr.organization_id', '=', userId),
          eb.exists(
            eb
              .selectFrom('memberships as viewer')
              .select('viewer.user_id')
              .whereRef('viewer.organization_id', '=', 'cr.organization_id')
              .where('viewer.user_id', '=', userId),
          ),
        ]),
      )
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Organizations with their member count (a correlated count on the memberships primary key). */
  #clubs() {
    return this.#context.db
      .selectFrom('users as u')
      .select(['u.id', 'u.name', 'u.description', 'u.created_at', 'u.updated_at'])
      .select((eb) =>
        eb
          .selectFrom('memberships as m')
          .select((count) => count.fn.countAll<number>().as('n'))
          .whereRef('m.organization_id', '=', 'u.id')
          .as('member_count'),
      )
      .where('u.kind', '=', 'organization');
  }

  /** The shares that count: those made by someone still in the club (see the rules above). */
  #countingShares() {
    return this.#context.db
      .selectFrom('club_routes as cr')
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('memberships as sharer')
            .select('sharer.user_id')
            .whereRef('sharer.organization_id', '=', 'cr.organization_id')
            .whereRef('sharer.user_id', '=', 'cr.shared_by'),
        ),
      );
  }

  /** The routes shared with the club by its current members, visible in `scope`. */
  #sharedRoutes(clubId: number, scope: ClubRouteScope) {
    let query = this.#countingShares()
      .innerJoin('routes as r', 'r.id', 'cr.route_id')
      .where('cr.organization_id', '=', clubId);
    if (scope === 'public') query = query.where('r.visibility', '=', 'public');
    return query;
  }
}

/** Whether `id` is an organization account (a club). */
async function isClub(db: Kysely<Database>, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', id)
    .where('kind', '=', 'organization')
    .executeTakeFirst();
  return row !== undefined;
}

/** `userId`'s role in the club; undefined when they do not belong to it. */
async function roleIn(
  db: Kysely<Database>,
  clubId: number,
  userId: number,
): Promise<MembershipRole | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', clubId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role;
}

function withCount(row: Omit<ClubRow, 'member_count'> & { member_count: number | null }): ClubRow {
  return { ...row, member_count: row.member_count ?? 0 };
}
