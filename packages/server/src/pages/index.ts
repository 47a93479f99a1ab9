/**
 * The web pages (decisions.md §4): sign-in and sign-out, developer settings, and the organization's
 * API clients page. Plain server-rendered HTML that works without JavaScript; every POST in this scope
 * needs a valid CSRF token (csrf.ts); errors are HTML pages (errors.ts). The OAuth consent page lives
 * with the rest of OAuth in ../oauth.
 */
import type { FastifyInstance } from 'fastify';
import type { PluginOptions } from '../context.js';
import { requireCsrfOnPosts } from './csrf.js';
import { dashboardRoutes } from './dashboard/index.js';
import { developerRoutes } from './developer.js';
import { faviconRoutes } from './favicon.js';
import { installPageErrorHandling } from './errors.js';
import { organizationRoutes } from './organizations.js';
import { signInRoutes } from './sign-in.js';
import { signInLinkRoutes } from './sign-in-link.js';
import { syncPageRoutes } from './dashboard/sync.js';

export async function webPages(app: FastifyInstance, { context }: PluginOptions): Promise<void> {
  installPageErrorHandling(app);
  requireCsrfOnPosts(app);
  // Only the context goes on: the options Fastify passed in hold more than the plugins take.
  const options: PluginOptions = { context };
  await app.register(signInRoutes, options);
  await app.register(developerRoutes, options);
  await app.register(organizationRoutes, options);
  await app.register(dashboardRoutes, options);
  await app.register(signInLinkRoutes, options);
  await app.register(syncPageRoutes, options);
  await app.register(faviconRoutes);
}

export { csrfHmacKey, registerCsrf } from './csrf.js';
