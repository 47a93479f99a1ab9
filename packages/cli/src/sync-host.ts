/**
 * What `rideport sync` and `rideport up` share around the sync engine beyond @rideport/sync's host
 * helpers: the `--import` option, the first-run question "how far back?", and who runs the command.
 */
import { createInterface } from 'node:readline/promises';
import { parseImportWindow, type ImportWindow, type SourceStatus, type SyncEngine } from '@rideport/sync';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';

/** `--import all|new|<N>d`, or a usage error naming the option. */
export function importWindowOption(text: string | undefined, command: string): ImportWindow | undefined {
  if (text === undefined) return undefined;
  const window = parseImportWindow(text);
  if (window === null) {
    throw new UsageError(`${command}: --import must be all, new or <N>d (the last N days), got '${text}'`);
  }
  return window;
}

/**
 * Answers the first-run question for every source that waits for it: on a terminal by asking, else
 * with a usage error saying which option answers it (issue 6: "First run asks (or is told by option)").
 */
export async function answerImportQuestions(engine: SyncEngine, io: CliIo, command: string): Promise<void> {
  const waiting = engine.status().sources.filter((source) => source.awaitingImportChoice);
  if (waiting.length === 0) return;
  if (io.terminal === undefined) {
    throw new UsageError(
      `${command}: first sync of ${waiting.map((source) => source.label).join(', ')}: say how far back to import with --import all|new|<N>d`,
    );
  }
  for (const source of waiting) engine.chooseImport(source.id, await ask(io.terminal, source));
}

async function ask(terminal: NonNullable<CliIo['terminal']>, source: SourceStatus): Promise<ImportWindow> {
  const prompt = createInterface({ input: terminal.input, output: terminal.output });
  try {
    for (;;) {
      const answer = (
        await prompt.question(
          `First sync of ${source.label}: import all rides (all), only new ones (new), or the last N days (e.g. 30d)? [all] `,
        )
      ).trim();
      const window = parseImportWindow(answer === '' ? 'all' : answer);
      if (window !== null) return window;
      terminal.output.write('Please answer all, new, or a number of days such as 30d.\n');
    }
  } finally {
    prompt.close();
  }
}
