/**
 * Browser bundle size of @rideport/ridefile (`npm run bench:size`, issue 21): esbuild bundles for the
 * browser, minified, of what a page imports, from the built package as users get it (its `exports`,
 * not the TypeScript sources), beside the peers a page would otherwise bundle to read the same files.
 * Prints minified and gzip bytes and the ratio to the peers.
 *
 * Budget: everything the package exports, bundled, stays at or below BUDGET_MINIFIED_BYTES minified
 * (216 kB, the size when issue 21 was filed); the command exits 1 when it does not, and
 * test/bundle-size.test.ts checks the same in `npm test`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { DEVELOPMENT_CONDITION, REPOSITORY_ROOT } from '../scripts/pack-package.js';
import { formatTable } from './table.js';

export const BUDGET_MINIFIED_BYTES = 216_000;

export interface BundleEntry {
  id: string;
  label: string;
  /** the entry module: what a page's script imports and keeps */
  source: string;
  /** a peer this entry is compared with, by id */
  peer?: string;
}

export const BUNDLES: readonly BundleEntry[] = [
  {
    id: 'whole',
    label: 'everything @rideport/ridefile exports',
    source: "import * as ridefile from '@rideport/ridefile'; globalThis.ridefile = ridefile;",
    peer: 'peers-all',
  },
  {
    id: 'parse',
    label: 'parseRideFile (FIT, TCX, GPX, KML, KMZ, gzip)',
    source: "import { parseRideFile } from '@rideport/ridefile'; globalThis.parse = parseRideFile;",
    peer: 'peers-all',
  },
  {
    id: 'fit',
    label: 'parseFitFile (FIT only, tree-shaken)',
    source: "import { parseFitFile } from '@rideport/ridefile'; globalThis.parse = parseFitFile;",
    peer: 'peers-fit',
  },
  {
    id: 'writer',
    label: 'writeGpx alone',
    source: "import { writeGpx } from '@rideport/ridefile'; globalThis.write = writeGpx;",
  },
  {
    id: 'peers-all',
    label: 'peers: fit-file-parser + @tmcw/togeojson + @xmldom/xmldom',
    source: [
      "import FitParser from 'fit-file-parser';",
      "import { gpx, kml, tcx } from '@tmcw/togeojson';",
      "import { DOMParser } from '@xmldom/xmldom';",
      'globalThis.peers = { FitParser, gpx, kml, tcx, DOMParser };',
    ].join('\n'),
  },
  {
    id: 'peers-fit',
    label: 'peer: fit-file-parser',
    source: "import FitParser from 'fit-file-parser'; globalThis.FitParser = FitParser;",
  },
];

export interface BundleSize {
  entry: BundleEntry;
  minifiedBytes: number;
  gzipBytes: number;
  /** the files that went into the bundle, relative to the repository */
  inputs: string[];
}

/**
 * Bundles one entry for the browser, minified, and measures it. `fromSources` bundles the TypeScript
 * sources (the development condition) instead of the build, for a test that must not depend on a
 * fresh `tsc -b`; esbuild strips the same types tsc does, so the sizes differ by a few bytes.
 */
export async function measureBundle(entry: BundleEntry, fromSources = false): Promise<BundleSize> {
  const result = await build({
    stdin: {
      contents: entry.source,
      resolveDir: REPOSITORY_ROOT,
      loader: 'js',
      sourcefile: `${entry.id}.js`,
    },
    absWorkingDir: REPOSITORY_ROOT,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    conditions: fromSources ? [DEVELOPMENT_CONDITION] : [],
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${entry.id}`);
  return {
    entry,
    minifiedBytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents, { level: 9 }).byteLength,
    inputs: inputsOf(result.metafile),
  };
}

function inputsOf(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

const KB = 1000;

function kilobytes(bytes: number): string {
  return `${(bytes / KB).toFixed(1)} kB`;
}

async function main(): Promise<void> {
  const sizes = new Map<string, BundleSize>();
  for (const entry of BUNDLES) sizes.set(entry.id, await measureBundle(entry));
  const rows = [...sizes.values()].map(({ entry, minifiedBytes, gzipBytes }) => {
    const peer = entry.peer === undefined ? undefined : sizes.get(entry.peer);
    return [
      entry.label,
      kilobytes(minifiedBytes),
      kilobytes(gzipBytes),
      peer === undefined ? '' : `${(minifiedBytes / peer.minifiedBytes).toFixed(2)}×`,
    ];
  });
  console.log('Browser bundles (esbuild, minified, ES2022), from the built package:\n');
  console.log(
    formatTable(['bundle', 'minified', 'gzip', 'vs peers (minified)'], rows, [
      'left',
      'right',
      'right',
      'right',
    ]),
  );
  const whole = sizes.get('whole')!;
  const verdict = whole.minifiedBytes <= BUDGET_MINIFIED_BYTES ? 'within' : 'OVER';
  console.log(
    `\nBudget: everything exported ≤ ${kilobytes(BUDGET_MINIFIED_BYTES)} minified: ${kilobytes(whole.minifiedBytes)}, ${verdict} budget.`,
  );
  if (verdict === 'OVER') process.exitCode = 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
