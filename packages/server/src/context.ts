import type { FastifyInstance } from 'fastify';
import type { ResolvedOptions } from './options.js';
import type { Store } from './store/index.js';

/** What every plugin of the server gets: the data-access layer and the resolved options. */
export interface ServerContext {
  store: Store;
  options: ResolvedOptions;
  /**
   * An absolute one-time sign-in link for `userId` (issue 7; pages/sign-in-link.ts): it signs a
   * browser in once, within two minutes, and goes on to `next` (a path on this site; default
   * /dashboard). The desktop app's window and `rideport up` open the dashboard with it.
   */
  signInLink(userId: number, next?: string): Promise<string>;
}

/** The options object of every plugin (Fastify passes it to the plugin function). */
export interface PluginOptions {
  context: ServerContext;
}

/**
 * A plugin of pages a host hands to buildServer (`pages`), such as @rideport/dashboard (issue 35): it is
 * registered with the server's own pages, under their CSRF check and HTML error pages, and builds only
 * on `@rideport/server/web`.
 */
export type PagePlugin = (app: FastifyInstance, options: PluginOptions) => Promise<void>;
