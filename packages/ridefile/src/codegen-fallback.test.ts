import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusFiles, fixturePath, readCorpus, readFixture } from '../../../test/support/corpus.js';
import type { RideFile } from './model.js';
import { parseRideFile } from './parse.js';

/**
 * The record readers (fit/record-steps.ts) and the point builders (track.ts) are generated with
 * `new Function`. Where code generation is forbidden (a browser page whose Content-Security-Policy has
 * no 'unsafe-eval'), `new Function` throws and both fall back to interpreting: the result must be the
 * same, value for value and key for key. Here the fallback runs in a fresh copy of the modules, with a
 * global `Function` that refuses to construct, on every FIT fixture and corpus file.
 */

interface Input {
  name: string;
  bytes: Uint8Array;
}

const fitFixtures: Input[] = readdirSync(fixturePath('fit'))
  .filter((name) => name.endsWith('.fit'))
  .map((name) => ({ name, bytes: readFixture('fit', name) }));
const corpus: Input[] = corpusFiles().map((file) => ({ name: file.name, bytes: readCorpus(file.name) }));

type Outcome = RideFile | { error: string };

function outcome(parse: typeof parseRideFile, input: Input): Outcome {
  try {
    return parse(input.bytes, { filename: input.name });
  } catch (error) {
    return { error: String(error) };
  }
}

/** The keys of every point in order: equality of values alone would not see a key out of place. */
function keyOrders(result: Outcome): string[][] {
  return 'tracks' in result
    ? result.tracks.map((track) => track.points.map((p) => Object.keys(p).join('')))
    : [];
}

describe('without code generation (a strict Content-Security-Policy)', () => {
  const inputs = [...fitFixtures, ...corpus];
  // Computed with code generation, before the global Function is replaced.
  const expected = new Map(inputs.map((input) => [input.name, outcome(parseRideFile, input)]));
  let interpreted: typeof parseRideFile;

  beforeAll(async () => {
    const refuse = (): never => {
      throw new EvalError('Code generation from strings disallowed for this context');
    };
    vi.stubGlobal('Function', new Proxy(Function, { construct: refuse, apply: refuse }));
    vi.resetModules();
    ({ parseRideFile: interpreted } = await import('./parse.js'));
  });

  afterAll(() => {
    vi.unstubAllGlobals();
  });

  it('cannot generate code (the test is real)', () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: it must be refused
    expect(() => new Function('return 1')).toThrow(EvalError);
  });

  for (const input of inputs) {
    it(`reads ${input.name} exactly as with generated code`, () => {
      const actual = outcome(interpreted, input);
      const wanted = expected.get(input.name)!;
      expect(actual).toStrictEqual(wanted);
      expect(keyOrders(actual)).toEqual(keyOrders(wanted));
    });
  }
});
