/**
 * @rideport/dashboard (issue 35): the rider's dashboard (issues 7 and 19: rides, routes, the overview,
 * clubs, preferences and the sync page) as one plugin of pages, with its browser assets (Leaflet, uPlot,
 * its own script and stylesheet). A host hands it to buildServer:
 *
 *   buildServer({ ...options, pages: [dashboardPages] })
 *
 * It builds only on `@rideport/server/web`; the server knows nothing of it.
 */
import type { PagePlugin } from '@rideport/server/web';
import { dashboardRoutes } from './routes.js';
import { syncPageRoutes } from './sync.js';

export const dashboardPages: PagePlugin = async (app, options) => {
  await app.register(dashboardRoutes, options);
  await app.register(syncPageRoutes, options);
};
