/**
 * Lines that fit the terminal (issue 35: `--help` lines ran to 237 characters and `rideport up`'s
 * start-up lines to 200, so a rider on an 80-column terminal read them broken at any character). Words
 * wrap at spaces only: a URL, a path or a `backticked command` is one word, never broken in the middle,
 * and stands alone on a line of its own when it is wider than the terminal (a copied command must run).
 */

/** The width when it is unknown or the output is not a terminal (a file, a pipe). */
export const DEFAULT_COLUMNS = 80;

/** Below this, a width is taken as unknown: no terminal is that narrow, and wrapping would say nothing. */
const NARROWEST_COLUMNS = 20;

/** The width to wrap at: the terminal's, or 80 when unknown or not a terminal. */
export function columnsOf(columns: number | undefined): number {
  return columns !== undefined && Number.isInteger(columns) && columns >= NARROWEST_COLUMNS
    ? columns
    : DEFAULT_COLUMNS;
}

/**
 * The words of `text`: runs of non-space, except that a span in backticks (a command) is one word with
 * whatever sticks to it (a comma, a parenthesis).
 */
export function wordsOf(text: string): string[] {
  return text.match(/[^\s`]*`[^`]*`\S*|[^\s`]*`[^`]*$|\S+/g) ?? [];
}

/**
 * `text` (one paragraph, no newlines) in lines of at most `width` characters where words allow: the
 * first line begins with `indent`, the others with `hanging`.
 */
export function wrapParagraph(text: string, width: number, indent = '', hanging = indent): string[] {
  const lines: string[] = [];
  let line = indent;
  let empty = true;
  for (const word of wordsOf(text)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = hanging + word;
    } else {
      line += empty ? word : ` ${word}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * A list, `items` joined by `, ` and wrapped between items only (an item such as `h heart rate` stays
 * on one line): the first line begins with `indent`, the others with `hanging`.
 */
export function wrapList(items: readonly string[], width: number, indent: string, hanging: string): string[] {
  const lines: string[] = [];
  let line = indent;
  items.forEach((item, i) => {
    const text = i < items.length - 1 ? `${item},` : item;
    if (i > 0 && line.length + 1 + text.length > width) {
      lines.push(line);
      line = hanging + text;
    } else {
      line += i === 0 ? text : ` ${text}`;
    }
  });
  lines.push(line);
  return lines;
}

/**
 * A message of one or more lines, each wrapped with `hanging` before its continuation lines; a line
 * that begins with a space is an example or command set apart, and stays whole.
 */
export function wrapMessage(message: string, width: number, hanging = '  '): string {
  return message
    .split('\n')
    .flatMap((line) => {
      if (line === '' || /^\s/.test(line)) return [line];
      return wrapParagraph(line, width, '', hanging);
    })
    .join('\n');
}
