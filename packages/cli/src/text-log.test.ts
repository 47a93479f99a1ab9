/** The text log (text-log.ts): the server's events as one line of words each, nothing per request. */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_LOG_LINE_CHARS, textLogLine, textLogStream } from './text-log.js';

const AT = Date.parse('2026-11-27T12:59:03.456Z');

describe('textLogLine', () => {
  it.each([
    [{ level: 30, time: AT, reqId: 'req-1', msg: 'request completed' }, null],
    [{ level: 30, time: AT, msg: 'Server listening at http://127.0.0.1:3000' }, null],
    [{ level: 20, time: AT, msg: 'debug' }, null],
    [
      { level: 30, time: AT, msg: 'upload queue: the database can be reached again; waiting uploads go on' },
      '2026-11-27T12:59:03Z upload queue: the database can be reached again; waiting uploads go on',
    ],
    [
      { level: 40, time: AT, msg: 'upload queue: the database cannot be reached; uploads wait until it can' },
      '2026-11-27T12:59:03Z warning: upload queue: the database cannot be reached; uploads wait until it can',
    ],
    [
      {
        level: 50,
        time: AT,
        msg: 'upload queue: processing a task failed',
        err: { message: 'disk I/O error' },
      },
      '2026-11-27T12:59:03Z error: upload queue: processing a task failed: disk I/O error',
    ],
    // The error's words already in the message are not said twice.
    [
      { level: 50, time: AT, msg: 'cannot open: disk I/O error', err: { message: 'disk I/O error' } },
      '2026-11-27T12:59:03Z error: cannot open: disk I/O error',
    ],
    [{ level: 60, msg: 'out of memory\n  at somewhere' }, 'fatal: out of memory at somewhere'],
    // pino's message of an error with causes repeats the cause's words.
    [
      {
        level: 40,
        time: AT,
        msg: 'webhooks: the database cannot be reached; deliveries wait until it can',
        err: {
          message:
            'lost the connection to the database: Connection terminated unexpectedly: Connection terminated unexpectedly',
        },
      },
      '2026-11-27T12:59:03Z warning: webhooks: the database cannot be reached; deliveries wait until it can: lost the connection to the database: Connection terminated unexpectedly',
    ],
    [{ level: 50, time: AT }, '2026-11-27T12:59:03Z error: (no message)'],
    // A request that failed on the server (its 500) is said with its reason (issue 36).
    [
      {
        level: 50,
        time: AT,
        reqId: 'req-7',
        msg: 'v1 request failed',
        err: { message: 'Invalid string length' },
      },
      '2026-11-27T12:59:03Z error: v1 request failed: Invalid string length',
    ],
  ])('%j → %j', (entry, shown) => {
    expect(textLogLine(entry)).toBe(shown);
  });

  it('cuts a line past its bound and says how much was cut', () => {
    const shown = textLogLine({
      level: 50,
      time: AT,
      msg: `named ${'x'.repeat(100_000)}`,
      err: { message: 'y' },
    });
    expect(shown).toHaveLength(MAX_TEXT_LOG_LINE_CHARS);
    expect(shown).toMatch(/^2026-11-27T12:59:03Z error: named x+ … \(98\d{3} more characters cut\)$/);
  });

  it('shows every event at info and above on one line, and nothing below info or about a request', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            level: fc.integer({ min: 0, max: 100 }),
            time: fc.integer({ min: 0, max: 4_102_444_800_000 }),
            msg: fc.string().filter((msg) => !msg.startsWith('Server listening at ')),
            reqId: fc.string(),
            err: fc.record({ message: fc.string() }),
          },
          { requiredKeys: ['level'] },
        ),
        (entry) => {
          const shown = textLogLine(entry);
          if (entry.level < 30 || (entry.reqId !== undefined && entry.level < 50)) {
            expect(shown).toBeNull();
          } else {
            expect(shown).not.toBeNull();
            expect(shown).not.toMatch(/\n/);
            expect(shown!.length).toBeLessThanOrEqual(MAX_TEXT_LOG_LINE_CHARS);
            const word = entry.level >= 60 ? 'fatal' : entry.level >= 50 ? 'error' : 'warning';
            if (entry.level >= 40) expect(shown!.replace(/^\S+Z /, '')).toMatch(new RegExp(`^${word}: `));
          }
        },
      ),
    );
  });
});

describe('textLogStream', () => {
  it("writes a pino logger's events as lines and drops those about requests (but their errors) and below info", () => {
    const written: string[] = [];
    const output = { write: (chunk: string) => written.push(chunk) > 0, once: () => undefined };
    const log = pino({ level: 'info' }, textLogStream(output));
    log.debug('a detail');
    log.child({ reqId: 'req-1' }).info('request completed');
    log.warn("upload queue: the server's disk is full; uploads wait until there is space again");
    log.error({ err: new Error('SQLITE_IOERR: disk I/O error') }, 'upload queue: claiming a task failed');
    log
      .child({ reqId: 'req-2' })
      .error({ err: new RangeError('Invalid string length') }, 'v1 request failed');
    expect(written).toHaveLength(3);
    expect(written[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ warning: upload queue: the server's disk is full; uploads wait until there is space again\n$/,
    );
    expect(written[1]).toMatch(
      /Z error: upload queue: claiming a task failed: SQLITE_IOERR: disk I\/O error\n$/,
    );
    expect(written[2]).toMatch(/Z error: v1 request failed: Invalid string length\n$/);
  });

  it('writes a line that is not JSON as it came', () => {
    const written: string[] = [];
    const output = { write: (chunk: string) => written.push(chunk) > 0, once: () => undefined };
    textLogStream(output).write('not json');
    expect(written).toEqual(['not json\n']);
  });
});
