import type { ClockJump, TimeSpan } from '../model.js';

/**
 * Time as the summary counts it (issue 16, "a clock that jumps is not corruption"): times are whole
 * seconds, as the points carry them; each timed row adds the seconds since the latest time before it.
 *
 * - A repeated time, or one a little earlier than the latest (records out of order), adds nothing.
 * - A clock that jumps is a device clock set or glitching mid-ride, not riding time: a jump forward of
 *   more than CLOCK_JUMP_FORWARD_SECONDS that no pause of the file covers, or back by more than
 *   CLOCK_JUMP_BACKWARD_SECONDS. It adds nothing, is listed in `jumps`, and counting goes on from the
 *   new time. (A rider may pause overnight on a tour: a pause the device marked is not a jump.)
 */
export const CLOCK_JUMP_FORWARD_SECONDS = 86_400;
export const CLOCK_JUMP_BACKWARD_SECONDS = 60;

export class Clock {
  readonly jumps: ClockJump[] = [];
  readonly #pauses: Pauses;
  #latest = NaN;

  constructor(pauses: Pauses) {
    this.#pauses = pauses;
  }

  /** The latest time counted so far; the interval a row's step covers ends at its time. */
  get latest(): number {
    return this.#latest;
  }

  /** The seconds whole-second `time` adds to the elapsed time (NaN `time`: none, and nothing changes). */
  step(time: number): number {
    if (Number.isNaN(time)) return 0;
    const latest = this.#latest;
    if (Number.isNaN(latest)) {
      this.#latest = time;
      return 0;
    }
    const seconds = time - latest;
    if (seconds > 0 && (seconds <= CLOCK_JUMP_FORWARD_SECONDS || this.#pauses.covers(latest, time))) {
      this.#latest = time;
      return seconds;
    }
    if (seconds > 0 || seconds < -CLOCK_JUMP_BACKWARD_SECONDS) {
      this.jumps.push({ at: time, seconds });
      this.#latest = time;
    }
    return 0;
  }
}

/** How near a pause's ends must lie to a gap's ends to explain it (records and events differ by a little). */
const PAUSE_SLACK_SECONDS = 60;

/** The pauses a file marks, sorted, answering how much of an interval they cover. */
export class Pauses {
  readonly #spans: readonly TimeSpan[];
  /** index of the first span that may still overlap an interval starting at or after #cursorTime */
  #cursor = 0;
  #cursorTime = -Infinity;

  constructor(spans: readonly TimeSpan[] = []) {
    // Whole seconds, as every time the summary counts.
    this.#spans = spans
      .map(([from, to]): TimeSpan => [Math.floor(from), Math.floor(to)])
      .filter(([from, to]) => to > from)
      .sort((a, b) => a[0] - b[0]);
  }

  get count(): number {
    return this.#spans.length;
  }

  /** The seconds of (from, to] the pauses cover (overlapping pauses counted once). */
  within(from: number, to: number): number {
    const spans = this.#spans;
    if (spans.length === 0 || to <= from) return 0;
    if (from < this.#cursorTime) this.#cursor = 0; // a clock that went back: search from the start
    this.#cursorTime = from;
    while (this.#cursor < spans.length && spans[this.#cursor]![1] <= from) this.#cursor++;
    let covered = 0;
    let reached = from;
    for (let i = this.#cursor; i < spans.length; i++) {
      const [start, end] = spans[i]!;
      if (start >= to) break;
      const overlapFrom = Math.max(start, reached);
      const overlapTo = Math.min(end, to);
      if (overlapTo > overlapFrom) {
        covered += overlapTo - overlapFrom;
        reached = overlapTo;
      }
    }
    return covered;
  }

  /** Whether one pause spans the gap from `from` to `to`, give or take a minute at either end. */
  covers(from: number, to: number): boolean {
    return this.#spans.some(
      ([start, end]) => start <= from + PAUSE_SLACK_SECONDS && end >= to - PAUSE_SLACK_SECONDS,
    );
  }
}
