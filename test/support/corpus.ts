import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real-world corpus beside the repository (`../shared/corpus`, see its SOURCES.md). Tests read it
 * in place, never copy it, and say clearly that they skipped when it is not there.
 * RIDEPORT_CORPUS overrides the location.
 */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const CORPUS_DIR = process.env['RIDEPORT_CORPUS'] ?? resolve(REPOSITORY_ROOT, '../shared/corpus');

export const corpusAvailable = existsSync(join(CORPUS_DIR, 'SOURCES.md'));

export const CORPUS_SKIP_REASON = `corpus not found at ${CORPUS_DIR}: corpus tests skipped`;

if (!corpusAvailable) console.warn(`[rideport] ${CORPUS_SKIP_REASON}`);

export type CorpusFormat = 'fit' | 'gpx' | 'tcx' | 'kml';

export interface CorpusFile {
  name: string;
  format: CorpusFormat;
  path: string;
}

/** Every corpus file (optionally of one format), sorted by name; empty when the corpus is absent. */
export function corpusFiles(format?: CorpusFormat): CorpusFile[] {
  if (!corpusAvailable) return [];
  const formats: CorpusFormat[] = format === undefined ? ['fit', 'gpx', 'tcx', 'kml'] : [format];
  return formats.flatMap((dir) =>
    readdirSync(join(CORPUS_DIR, dir))
      .sort()
      .map((name) => ({ name, format: dir, path: join(CORPUS_DIR, dir, name) })),
  );
}

export function corpusFile(name: string): CorpusFile {
  const found = corpusFiles().find((file) => file.name === name);
  if (found === undefined) throw new Error(`corpus file ${name} not found in ${CORPUS_DIR}`);
  return found;
}

export function readCorpus(name: string): Uint8Array {
  return new Uint8Array(readFileSync(corpusFile(name).path));
}

export function fixturePath(...parts: string[]): string {
  return join(REPOSITORY_ROOT, 'fixtures', ...parts);
}

export function readFixture(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(fixturePath(...parts)));
}

/**
 * Corpus files that no device recorded: SOURCES.md marks them SYNTHETIC (made by a library's generator
 * for speed tests). Checks against what devices computed leave them out.
 */
export function syntheticCorpusFiles(): ReadonlySet<string> {
  if (!corpusAvailable) return new Set();
  const sources = readFileSync(join(CORPUS_DIR, 'SOURCES.md'), 'utf8');
  const names = sources
    .split('\n')
    .filter((line) => line.startsWith('| `') && line.includes('SYNTHETIC'))
    .map((line) => line.slice(3, line.indexOf('`', 3)));
  return new Set(names);
}
