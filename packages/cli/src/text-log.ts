/**
 * `--log-format text`, the default of `serve`, `up` and `worker`: the server's own events, one line of
 * words each, and nothing per request (that is what `--log-format json` is for) but a request that
 * failed on the server (an error: the 500 a client saw, with its reason; issue 36). Every line has a
 * bound, whatever a message holds. Such events are a
 * full disk, a database out of reach and back again (issue 18), an upload that could not be read for
 * a reason of the server's own (issue 17, "Faults said in words"), the nightly purge. Before, a
 * terminal running `rideport serve` stayed silent through an outage.
 */
import type { CliWritable } from './io.js';

/** pino's level numbers, from the highest, and the word a line of that level or above begins with */
const LEVEL_WORDS: readonly [number, string | null][] = [
  [60, 'fatal'],
  [50, 'error'],
  [40, 'warning'],
  [30, null],
];

/** The least level pino need hand to the text log (levels below it are never shown). */
export const TEXT_LOG_LEVEL = 'info';

/** The longest line the text log writes, in characters; a longer message is cut and says so. */
export const MAX_TEXT_LOG_LINE_CHARS = 2000;

/** Fastify's own line when it listens: the commands say where they listen themselves. */
const FASTIFY_LISTENING = /^Server listening at /;

interface LogLine {
  level?: unknown;
  time?: unknown;
  msg?: unknown;
  /** set on Fastify's lines about one request */
  reqId?: unknown;
  err?: { message?: unknown };
}

/**
 * A pino destination that writes the server's events to `output` as
 * `2026-11-27T12:59:03Z warning: <message>[: <the error's own words>]` (UTC, as the JSON log's time; no
 * word for an event that is neither a warning nor an error), and drops lines about single requests and
 * below info. A line that is not pino's JSON is written as it came.
 */
export function textLogStream(output: CliWritable): { write(line: string): void } {
  return {
    write(line: string): void {
      let entry: LogLine;
      try {
        entry = JSON.parse(line) as LogLine;
      } catch {
        output.write(line.endsWith('\n') ? line : `${line}\n`);
        return;
      }
      const shown = textLogLine(entry);
      if (shown !== null) output.write(`${shown}\n`);
    },
  };
}

/** The words for one of pino's lines, or null when the text log leaves it out. */
export function textLogLine(entry: LogLine): string | null {
  const level = typeof entry.level === 'number' ? entry.level : 0;
  const levelWord = LEVEL_WORDS.find(([least]) => level >= least);
  if (levelWord === undefined) return null;
  // A request's lines are per request, but an error in one is the server's own fault: said.
  if (entry.reqId !== undefined && level < 50) return null;
  if (typeof entry.msg === 'string' && FASTIFY_LISTENING.test(entry.msg)) return null;
  const time = typeof entry.time === 'number' ? `${new Date(entry.time).toISOString().slice(0, 19)}Z ` : '';
  const word = levelWord[1] === null ? '' : `${levelWord[1]}: `;
  const message = typeof entry.msg === 'string' && entry.msg !== '' ? oneLine(entry.msg) : '(no message)';
  const reason = typeof entry.err?.message === 'string' ? oneLine(entry.err.message) : '';
  const because = reason === '' || message.includes(reason) ? '' : `: ${reason}`;
  return bounded(`${time}${word}${withoutRepeats(`${message}${because}`)}`);
}

/** The line as it is, or its start and how much was cut (a message can be as long as a request made it). */
function bounded(line: string): string {
  if (line.length <= MAX_TEXT_LOG_LINE_CHARS) return line;
  const note = ` … (${line.length - MAX_TEXT_LOG_LINE_CHARS} more characters cut)`;
  return `${line.slice(0, MAX_TEXT_LOG_LINE_CHARS - note.length)}${note}`;
}

/** A line of a log is one line: a message with line breaks (a stack, a SQL statement) is joined. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * pino writes an error's message followed by its causes' (`lost the connection to the database:
 * Connection terminated unexpectedly: Connection terminated unexpectedly`): a part said twice in a row
 * is said once.
 */
function withoutRepeats(text: string): string {
  return text
    .split(': ')
    .filter((part, index, parts) => index === 0 || part !== parts[index - 1])
    .join(': ');
}
