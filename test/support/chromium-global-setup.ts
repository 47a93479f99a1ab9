/**
 * Vitest's global setup for the projects with page tests (issue 35: one Chromium a run, not one a file):
 * Debian's Chromium is started once, as a Playwright browser server, and each test file connects to it
 * (`launchChromium` in chromium.ts) with browser contexts of its own, which it closes with its
 * connection. Stopped when the last project that named this setup in vitest.config.ts ends. Without
 * Chromium it starts nothing, and the page tests skip as they always did, saying why.
 */
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { takeRunResource } from '../../packages/server/src/test-support/run-resource.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumAvailable } from './chromium.js';

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!chromiumAvailable) return () => Promise.resolve();
  const run = takeRunResource(
    'rideportTestChromiumServer',
    () => chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
    (server) => server.close(),
  );
  try {
    project.provide('chromiumWsEndpoint', (await run.value).wsEndpoint());
  } catch (error) {
    await run.release();
    throw error;
  }
  return run.release;
}
