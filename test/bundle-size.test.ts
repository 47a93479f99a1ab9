/**
 * The browser bundle of @rideport/ridefile within its budget (issue 21; `npm run bench:size` prints the
 * sizes). Sizes are bytes of esbuild output, the same on every machine: a budget, not a timing.
 */
import { describe, expect, it } from 'vitest';
import { BUDGET_MINIFIED_BYTES, BUNDLES, measureBundle, type BundleSize } from '../bench/size.js';

async function measure(id: string): Promise<BundleSize> {
  const entry = BUNDLES.find((bundle) => bundle.id === id);
  if (entry === undefined) throw new Error(`no bundle ${id} in bench/size.ts`);
  return measureBundle(entry, true);
}

describe('the browser bundle of @rideport/ridefile', () => {
  it(`stays within ${BUDGET_MINIFIED_BYTES / 1000} kB minified with everything the package exports`, async () => {
    const whole = await measure('whole');
    expect(whole.inputs.some((input) => input.includes('packages/ridefile/src/'))).toBe(true);
    expect(whole.minifiedBytes).toBeLessThanOrEqual(BUDGET_MINIFIED_BYTES);
  });

  it('leaves the XML parser and readers out of a FIT-only import', async () => {
    const [fit, parse] = await Promise.all([measure('fit'), measure('parse')]);
    expect(fit.inputs.filter((input) => /saxes|xmlchars|xml\/(sax|gpx|tcx|kml)/.test(input))).toEqual([]);
    expect(parse.inputs.some((input) => input.includes('saxes'))).toBe(true);
    expect(fit.minifiedBytes).toBeLessThan(parse.minifiedBytes);
  });

  it('leaves the readers and the FIT profile out of a writer-only import', async () => {
    const writer = await measure('writer');
    expect(writer.inputs.filter((input) => /fit\/|xml\/|saxes|fflate/.test(input))).toEqual([]);
  });
});
