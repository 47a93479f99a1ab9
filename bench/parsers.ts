/**
 * The parsers `bench/parse.ts` compares (issue: parse benchmark against peers), each used the way its
 * README shows. Shared by the timing run and the per-parse memory child (`parse-memory.ts`), so both
 * measure the same calls. Libraries load on demand: a memory child loads only the parser it measures.
 */

export type BenchFormat = 'fit' | 'gpx' | 'tcx' | 'kml';

/** Parses one file's bytes; returns the parser's result (kept so the work cannot be optimised away). */
export type ParseRun = (bytes: Buffer) => unknown;

export interface BenchParser {
  /** short name used on the command line of the memory child */
  id: ParserId;
  /** name shown in the tables */
  label: string;
  formats: readonly BenchFormat[];
  load(format: BenchFormat): Promise<ParseRun>;
}

export type ParserId = 'ours' | 'fit-file-parser' | 'fitsdk' | 'togeojson';

const ours: BenchParser = {
  id: 'ours',
  label: '@rideport/ridefile',
  formats: ['fit', 'gpx', 'tcx', 'kml'],
  async load() {
    // The package's default export condition: the built dist, as users get it (not the TS sources).
    const { parseRideFile } = await import('@rideport/ridefile');
    return (bytes) => parseRideFile(bytes);
  },
};

const fitFileParser: BenchParser = {
  id: 'fit-file-parser',
  label: 'fit-file-parser',
  formats: ['fit'],
  async load() {
    const { default: FitParser } = await import('fit-file-parser');
    return (bytes) => {
      // Its README: `new FitParser({ force: true, ... }).parse(content, (error, data) => …)`; the
      // callback runs before parse returns, so the run stays synchronous like the others.
      let data: unknown;
      let failure: string | undefined;
      // Its types want a Buffer over an ArrayBuffer; readFileSync never returns a shared one.
      new FitParser({ force: true }).parse(bytes as Buffer<ArrayBuffer>, (error, parsed) => {
        failure = error;
        data = parsed;
      });
      if (failure !== undefined) throw new Error(failure);
      return data;
    };
  },
};

const fitSdk: BenchParser = {
  id: 'fitsdk',
  label: '@garmin/fitsdk',
  formats: ['fit'],
  async load() {
    const { Decoder, Stream } = await import('@garmin/fitsdk');
    return (bytes) => {
      // Default read options, as in the SDK's README. It reports failures in `errors` instead of
      // throwing; a file it could not read counts as failed, like a throw.
      const { messages, errors } = new Decoder(Stream.fromBuffer(bytes)).read();
      const [failure] = errors;
      if (failure !== undefined) throw failure;
      return messages;
    };
  },
};

const togeojson: BenchParser = {
  id: 'togeojson',
  label: 'togeojson+xmldom',
  formats: ['gpx', 'tcx', 'kml'],
  async load(format) {
    const { DOMParser } = await import('@xmldom/xmldom');
    const toGeoJson = await import('@tmcw/togeojson');
    const convert = format === 'gpx' ? toGeoJson.gpx : format === 'tcx' ? toGeoJson.tcx : toGeoJson.kml;
    // Decoding the bytes is part of the peer's time: ours starts from the same bytes.
    return (bytes) => convert(new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'text/xml'));
  },
};

export const PARSERS: readonly BenchParser[] = [ours, fitFileParser, fitSdk, togeojson];

export function parserById(id: string): BenchParser {
  const parser = PARSERS.find((candidate) => candidate.id === id);
  if (parser === undefined)
    throw new Error(`unknown parser ${id}; known: ${PARSERS.map((p) => p.id).join(', ')}`);
  return parser;
}
