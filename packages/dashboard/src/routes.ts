/**
 * The dashboard (issue 7, part 1): the signed-in person's rides and routes, served by the server and
 * shown in the desktop app's window and at `rideport up`'s URL. Not signed in: the sign-in page, and
 * back. The sync page (sync*.ts in this folder) is registered on its own.
 *
 * Routes:
 *   GET /, /dashboard                                     → /dashboard/rides
 *   GET /dashboard/rides?page=N, /dashboard/routes?page=N  lists, 20 a page
 *   GET /dashboard/rides/:id, /dashboard/routes/:id        the ride or route page
 *   GET /dashboard/{rides,routes}/:id/download.{gpx,tcx,geojson,csv}
 *   GET, POST /dashboard/{rides,routes}/:id/edit            edit name, description, visibility (manage.ts)
 *   GET, POST /dashboard/{rides,routes}/delete?id=…        confirm, then delete one or several
 *   POST /dashboard/routes/:id/clubs[/remove]              share a route with a club, unshare (clubs.ts)
 *   GET /dashboard/clubs/:id, POST …/routes/remove         a club's routes; administrators remove
 *   GET /dashboard/overview                                weekly and monthly totals, best power (overview.ts)
 *   GET, POST /dashboard/preferences                      units, time zone, FTP, heart rates (preferences-page.ts)
 *   GET /assets/…                                          Leaflet, uPlot and the page script
 */
import { WRITE_FORMATS } from '@rideport/ridefile';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AssetType,
  idParameter,
  notFound,
  type PluginOptions,
  redirectToSignIn,
  sendOriginal,
  signedInUser,
  type UserRow,
} from '@rideport/server/web';
import { ownAsset, WORDS } from './access.js';
import { assetPage } from './asset-page.js';
import { DOWNLOAD_FORMATS, sendDownload } from './downloads.js';
import { listPage } from './lists.js';
import { clubPage, removeFromClubPage, routeClubsPath, shareFromPage } from './clubs.js';
import { OVERVIEW_PAGE, overviewPage } from './overview.js';
import { PREFERENCES_PAGE, savePreferences, showPreferences } from './preferences-page.js';
import { confirmDelete, deleteChosen, deletePath, saveEdit, showEditForm } from './manage.js';
import { staticAssetRoutes } from './static-assets.js';

export async function dashboardRoutes(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  const hidden = { schema: { hide: true } };

  /** The handler's user, or a redirect to sign in that comes back to this URL. */
  const page =
    (handler: (request: FastifyRequest, reply: FastifyReply, user: UserRow) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
      const user = await signedInUser(request, reply, context);
      if (user === undefined) return redirectToSignIn(reply, request.url);
      return handler(request, reply, user);
    };

  // `/` is the address the README and `rideport up` give (issue 19): it leads to the dashboard, or to
  // signing in first.
  for (const path of ['/', '/dashboard']) {
    app.get(
      path,
      hidden,
      page((_request, reply) => Promise.resolve(reply.redirect('/dashboard/rides', 303))),
    );
  }

  for (const type of ['trip', 'route'] as const satisfies readonly AssetType[]) {
    const { path } = WORDS[type];
    const id = (request: FastifyRequest): number =>
      idParameter(request.params, 'id', `the ${WORDS[type].one} id in the address`);
    app.get(
      path,
      hidden,
      page((request, reply, user) => listPage(request, reply, context, user, type)),
    );
    app.get(
      `${path}/:id`,
      hidden,
      page(async (request, reply, user) => {
        const row = await ownAsset(context, user, type, id(request));
        return assetPage(request, reply, context, user, type, row);
      }),
    );
    // Managing one's rides and routes (issue 19): manage.ts.
    app.get(
      `${path}/:id/edit`,
      hidden,
      page((request, reply, user) => showEditForm(request, reply, context, user, type, id(request))),
    );
    app.post(
      `${path}/:id/edit`,
      hidden,
      page((request, reply, user) => saveEdit(request, reply, context, user, type, id(request))),
    );
    app.get(
      deletePath(type),
      hidden,
      page((request, reply, user) => confirmDelete(request, reply, context, user, type)),
    );
    app.post(
      deletePath(type),
      hidden,
      page((request, reply, user) => deleteChosen(request, reply, context, user, type)),
    );
    // Issue 20, "Original files": the file as uploaded.
    app.get(
      `${path}/:id/original`,
      hidden,
      page(async (request, reply, user) => {
        const row = await ownAsset(context, user, type, id(request));
        const file = await context.store.originalFiles.ofAsset(type, row.id);
        if (file === undefined) throw notFound(`This ${WORDS[type].one} was not made from an uploaded file.`);
        return sendOriginal(reply, file, `${WORDS[type].one}-${row.id}`);
      }),
    );
    for (const format of DOWNLOAD_FORMATS) {
      app.get(
        `${path}/:id/download.${WRITE_FORMATS[format].extension}`,
        hidden,
        page(async (request, reply, user) => {
          const row = await ownAsset(context, user, type, id(request));
          return sendDownload(reply, context, type, row, format);
        }),
      );
    }
  }

  // Clubs (issue 20): clubs.ts.
  const routeId = (request: FastifyRequest): number =>
    idParameter(request.params, 'id', 'the route id in the address');
  const clubId = (request: FastifyRequest): number =>
    idParameter(request.params, 'id', 'the club id in the address');
  app.post(
    routeClubsPath(':id'),
    hidden,
    page((request, reply, user) => shareFromPage(request, reply, context, user, routeId(request), 'share')),
  );
  app.post(
    `${routeClubsPath(':id')}/remove`,
    hidden,
    page((request, reply, user) => shareFromPage(request, reply, context, user, routeId(request), 'unshare')),
  );
  app.get(
    '/dashboard/clubs/:id',
    hidden,
    page((request, reply, user) => clubPage(request, reply, context, user, clubId(request))),
  );
  app.post(
    '/dashboard/clubs/:id/routes/remove',
    hidden,
    page((request, reply, user) => removeFromClubPage(request, reply, context, user, clubId(request))),
  );
  // Weekly and monthly totals and the best power over all rides (issue 19): overview.ts.
  app.get(
    OVERVIEW_PAGE,
    hidden,
    page((request, reply, user) => overviewPage(request, reply, context, user)),
  );
  // Units, time zone and thresholds (issue 19): preferences-page.ts.
  app.get(
    PREFERENCES_PAGE,
    hidden,
    page((request, reply, user) => showPreferences(request, reply, context, user)),
  );
  app.post(
    PREFERENCES_PAGE,
    hidden,
    page((request, reply, user) => savePreferences(request, reply, context, user)),
  );

  await app.register(staticAssetRoutes);
}
