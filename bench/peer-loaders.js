// The parse calls bench/parse.ts measures, one per parser id, each used the way its README shows. Loaded
// by the measuring child processes (timing-child.js, parse-memory.js), which run one parser each.
//
// Plain JavaScript on purpose: run through tsx, the loader's own start-up heap sits in the measured
// process (and left committed pages that a parse then reused, which hid up to a third of its peak).
// bench/parsers.ts lists the same ids with their labels and formats for the report: keep the two alike.
import { TextDecoder } from 'node:util';

/** @typedef {(bytes: Buffer) => unknown} ParseRun */

/** @type {Record<string, (format: string) => Promise<ParseRun>>} */
export const LOADERS = {
  async ours() {
    // The package's default export condition: the built dist, as users get it (not the TS sources).
    const { parseRideFile } = await import('@rideport/ridefile');
    return (bytes) => parseRideFile(bytes);
  },
  async 'fit-file-parser'() {
    const { default: FitParser } = await import('fit-file-parser');
    return (bytes) => {
      // Its README: `new FitParser({ force: true, ... }).parse(content, (error, data) => …)`; the
      // callback runs before parse returns, so the run stays synchronous like the others.
      let data;
      let failure;
      new FitParser({ force: true }).parse(bytes, (error, parsed) => {
        failure = error;
        data = parsed;
      });
      if (failure !== undefined) throw new Error(failure);
      return data;
    };
  },
  async fitsdk() {
    const { Decoder, Stream } = await import('@garmin/fitsdk');
    return (bytes) => {
      // Default read options, as in the SDK's README. It reports failures in `errors` instead of
      // throwing; a file it could not read counts as failed, like a throw.
      const { messages, errors } = new Decoder(Stream.fromBuffer(bytes)).read();
      if (errors.length > 0) throw errors[0];
      return messages;
    };
  },
  async togeojson(format) {
    const { DOMParser } = await import('@xmldom/xmldom');
    const toGeoJson = await import('@tmcw/togeojson');
    const convert = toGeoJson[format];
    // Decoding the bytes is part of the peer's time: ours starts from the same bytes.
    return (bytes) => convert(new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'text/xml'));
  },
};

/** The parse run of `parserId` for `format`; throws on an unknown id (timing-child.js's `load`). */
export async function load(parserId, format) {
  const load = LOADERS[parserId];
  if (load === undefined)
    throw new Error(`unknown parser ${parserId}; known: ${Object.keys(LOADERS).join(', ')}`);
  return load(format);
}
