/**
 * The dashboard's scripts and stylesheets (issue 7), served by the dashboard itself, never from a CDN:
 * the desktop app and `rideport up` must work offline. Leaflet and uPlot come from this
 * package's own dependencies in node_modules, the page script and stylesheet from its assets folder
 * (in the package's "files"). Only the files listed here are served, by exact name, so no
 * request path ever reaches the file system.
 *
 * Every URL holds a version (the library's, or a hash of our own file's bytes), so the answers can be
 * cached for a year without a stale script ever being used after an upgrade.
 *
 *   GET /assets/leaflet/<version>/{leaflet.js, leaflet.css, images/*.png}
 *   GET /assets/uplot/<version>/{uPlot.iife.min.js, uPlot.min.css}
 *   GET /assets/rideport/<hash>/{dashboard.js, dashboard.css}
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { notFound } from '@rideport/server/web';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
};

const LEAFLET_FILES = [
  'leaflet.js',
  'leaflet.css',
  'images/layers.png',
  'images/layers-2x.png',
  'images/marker-icon.png',
  'images/marker-icon-2x.png',
  'images/marker-shadow.png',
];
const UPLOT_FILES = ['uPlot.iife.min.js', 'uPlot.min.css'];
const OWN_FILES = ['dashboard.js', 'dashboard.css'];

export interface AssetUrls {
  leafletJs: string;
  leafletCss: string;
  uplotJs: string;
  uplotCss: string;
  dashboardJs: string;
  dashboardCss: string;
}

interface AssetTable {
  urls: AssetUrls;
  /** URL path → file path */
  files: Map<string, string>;
}

let table: AssetTable | undefined;

/** Built on first use (no work at import time), then kept: the files do not change while we run. */
function assetTable(): AssetTable {
  if (table !== undefined) return table;
  const require = createRequire(import.meta.url);
  const files = new Map<string, string>();
  const library = (name: string, names: readonly string[]): string => {
    const packageJson = require.resolve(`${name}/package.json`);
    const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
    const prefix = `/assets/${name}/${version}/`;
    for (const file of names) files.set(prefix + file, join(dirname(packageJson), 'dist', file));
    return prefix;
  };
  const leaflet = library('leaflet', LEAFLET_FILES);
  const uplot = library('uplot', UPLOT_FILES);
  // src/ and dist/ are both one level below the package.
  const ownDirectory = fileURLToPath(new URL('../assets/', import.meta.url));
  const hash = createHash('sha256');
  for (const file of OWN_FILES) hash.update(readFileSync(join(ownDirectory, file)));
  const own = `/assets/rideport/${hash.digest('hex').slice(0, 12)}/`;
  for (const file of OWN_FILES) files.set(own + file, join(ownDirectory, file));
  table = {
    urls: {
      leafletJs: `${leaflet}leaflet.js`,
      leafletCss: `${leaflet}leaflet.css`,
      uplotJs: `${uplot}uPlot.iife.min.js`,
      uplotCss: `${uplot}uPlot.min.css`,
      dashboardJs: `${own}dashboard.js`,
      dashboardCss: `${own}dashboard.css`,
    },
    files,
  };
  return table;
}

export function assetUrls(): AssetUrls {
  return assetTable().urls;
}

const contents = new Map<string, Buffer>();

export function staticAssetRoutes(app: FastifyInstance): Promise<void> {
  app.get('/assets/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0]!;
    const file = assetTable().files.get(path);
    if (file === undefined) throw notFound('There is no such file.');
    let body = contents.get(path);
    if (body === undefined) {
      body = readFileSync(file);
      contents.set(path, body);
    }
    return reply
      .headers({
        'content-type': MEDIA_TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      })
      .send(body);
  });
  return Promise.resolve();
}
