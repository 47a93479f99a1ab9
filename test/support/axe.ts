/**
 * axe-core's accessibility audit of a page in Chromium (issue 40, "the axe-core audit clean"). The
 * engine is evaluated in the page through the browser's debugging protocol, as @axe-core/playwright
 * does, so the pages' Content-Security-Policy (no inline scripts) does not stop it. (That wrapper
 * needs Node 22; axe-core itself runs anywhere.)
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.1 A and AA rules the pages are held to. */
const WCAG_21_AA: RunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
};

/** Each rule the page breaks, in words: its id, what it asks, and where (at most three places). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (options) =>
      (window as unknown as { axe: { run: (o: unknown) => Promise<AxeResults> } }).axe.run(options),
    WCAG_21_AA,
  );
  return results.violations.map((violation) => {
    const where = violation.nodes
      .slice(0, 3)
      .map((node) => node.target.join(' '))
      .join('; ');
    return `${violation.id} (${violation.help}) at ${where}`;
  });
}
