import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, type ServerOptions } from '@rideport/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardPages } from '@rideport/dashboard';

export interface PageServer {
  app: Awaited<ReturnType<typeof buildServer>>;
  /** where it listens, e.g. http://127.0.0.1:40123 */
  url: string;
  /** stops the server and removes its data directory */
  close(): Promise<void>;
}

/**
 * The real server on a file database in a new temporary directory, listening on a free loopback port:
 * what the page tests in Chromium talk to over a real socket.
 */
export async function startPageServer(
  name: string,
  options: Partial<ServerOptions> = {},
): Promise<PageServer> {
  const directory = mkdtempSync(join(tmpdir(), `rideport-${name}-`));
  const app = await buildServer({
    pages: [dashboardPages],
    databasePath: join(directory, 'rideport.sqlite'),
    baseUrl: 'http://127.0.0.1',
    ...options,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    url,
    close: async () => {
      await app.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A new browser context signed in through the sign-in page as a rider would, with `path` asked for
 * first (sign-in leads back to it), and map tiles refused (the pages must draw without them).
 */
export async function signedInPage(
  browser: Browser,
  server: PageServer,
  account: { email: string; password: string },
  options: { width?: number; javaScriptEnabled?: boolean; path?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 900 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  await page.route('https://tile.openstreetmap.org/**', (route) => route.abort());
  await page.goto(`${server.url}${options.path ?? '/'}`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await Promise.all([
    page.waitForURL(`${server.url}/dashboard/rides`),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return { context, page };
}
