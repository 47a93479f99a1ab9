/**
 * The site icon (issue 19: "a favicon"): two wheels on the dashboard's blue, drawn as SVG so that one
 * small constant serves every size. Browsers ask for /favicon.ico by themselves when a page names no
 * icon (a 404 in every log otherwise), so that path answers the same SVG; the layout names
 * /favicon.svg. Both are constants of the server: no request path reaches the file system.
 */
import type { FastifyInstance } from 'fastify';

export const FAVICON_PATH = '/favicon.svg';

const FAVICON_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
    '<rect width="32" height="32" rx="7" fill="#0b57a4"/>' +
    '<g fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round">' +
    '<circle cx="9" cy="20" r="5.5"/><circle cx="23" cy="20" r="5.5"/>' +
    '<path d="M9 20l5-9h7l2 9M14 11l2.5 9H23M12.5 8h4"/></g></svg>',
);

export function faviconRoutes(app: FastifyInstance): Promise<void> {
  for (const path of [FAVICON_PATH, '/favicon.ico']) {
    app.get(path, { schema: { hide: true } }, (_request, reply) =>
      reply
        .headers({
          'content-type': 'image/svg+xml',
          'cache-control': 'public, max-age=86400',
          'x-content-type-options': 'nosniff',
        })
        .send(FAVICON_SVG),
    );
  }
  return Promise.resolve();
}
