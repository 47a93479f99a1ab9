/**
 * The web pages (docs/contributors/decisions.md §4): sign-in and sign-out, developer settings, and the organization's
 * API clients page. Plain server-rendered HTML that works without JavaScript; every POST in this scope
 * needs a valid CSRF token (csrf.ts); errors are HTML pages (errors.ts). The OAuth consent page lives
 * with the rest of OAuth in ../oauth.
 */
import type { FastifyInstance } from 'fastify';
import type { PagePlugin, PluginOptions } from '../context.js';
import { registerPageCompression } from './compression.js';
import { requireCsrfOnPosts } from './csrf.js';
import { developerRoutes } from './developer.js';
import { faviconRoutes } from './favicon.js';
import { installPageErrorHandling } from './errors.js';
import { organizationRoutes } from './organizations.js';
import { signInRoutes } from './sign-in.js';
import { signInLinkRoutes } from './sign-in-link.js';

/** The server's own pages, then the host's (`pages`: the dashboard, issue 35), in one scope. */
export async function webPages(
  app: FastifyInstance,
  { context, pages }: PluginOptions & { pages: readonly PagePlugin[] },
): Promise<void> {
  installPageErrorHandling(app);
  requireCsrfOnPosts(app);
  await registerPageCompression(app);
  // Only the context goes on: the options Fastify passed in hold more than the plugins take.
  const options: PluginOptions = { context };
  await app.register(signInRoutes, options);
  await app.register(developerRoutes, options);
  await app.register(organizationRoutes, options);
  await app.register(signInLinkRoutes, options);
  await app.register(faviconRoutes);
  for (const plugin of pages) await app.register(plugin, options);
}

export { csrfHmacKey, registerCsrf } from './csrf.js';
