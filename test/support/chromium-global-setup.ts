/**
 * Vitest's global setup for the projects with page tests (issue 35: one Chromium a run, not one a file):
 * Debian's Chromium is started once, as a Playwright browser server, and each test file connects to it
 * (`launchChromium` in chromium.ts) with browser contexts of its own, which it closes with its
 * connection. Stopped when the last project that named this setup in vitest.config.ts ends. Without
 * Chromium it starts nothing, and the page tests skip as they always did, saying why.
 */
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable } from './chromium.js';

/**
 * The run's browser. Each project loads this file in a module runner of its own, so the one browser is
 * kept on the main process's global object, with a count of the projects using it.
 */
const SHARED = 'rideportTestChromiumServer';

interface SharedChromium {
  server: Promise<BrowserServer>;
  users: number;
}

const holder = globalThis as unknown as Record<typeof SHARED, SharedChromium | undefined>;

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!chromiumAvailable) return () => Promise.resolve();
  const shared = (holder[SHARED] ??= {
    server: chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
    users: 0,
  });
  shared.users += 1;
  const release = async (): Promise<void> => {
    shared.users -= 1;
    if (shared.users > 0) return;
    holder[SHARED] = undefined;
    const server = await shared.server.catch(() => undefined);
    await server?.close();
  };
  try {
    project.provide('chromiumWsEndpoint', (await shared.server).wsEndpoint());
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}
