import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ClientError, ClientErrorCode } from '@rideport/client';
import { SyncEngine } from '@rideport/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo, CliWritable } from './io.js';
import { answerImportQuestions } from './sync-host.js';
import { reportSync, type SyncReport } from './sync-report.js';
import { Capture, temporaryDirectory } from './test-support/run.js';

/** A terminal made of streams: what is typed goes in `input`, what is drawn comes out of `output`. */
function fakeTerminal(): {
  input: PassThrough;
  output: PassThrough;
  stdoutIsTerminal: boolean;
  drawn: () => string;
} {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
  let drawn = '';
  output.on('data', (chunk: Buffer) => (drawn += chunk.toString()));
  return { input, output, stdoutIsTerminal: true, drawn: () => drawn };
}

/**
 * What a terminal shows, for what sync writes to it: text, \\r, \\n, erasing the line (ESC [ K),
 * moving to a column (ESC [ n G), saving and restoring the cursor (ESC 7, ESC 8); other sequences are
 * ignored. stdout and the terminal's output write to the same screen, as they do in a real one.
 */
class Screen {
  readonly rows: string[] = [''];
  #row = 0;
  #column = 0;
  #saved = { row: 0, column: 0 };

  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      if (char === '\x1b') {
        const rest = text.slice(i + 1);
        if (rest.startsWith('7') || rest.startsWith('8')) {
          if (rest.startsWith('7')) this.#saved = { row: this.#row, column: this.#column };
          else ({ row: this.#row, column: this.#column } = this.#saved);
          i += 1;
          continue;
        }
        const csi = /^\[\??([\d;]*)([A-Za-z])/.exec(rest);
        if (csi !== null) {
          i += csi[0].length;
          const row = this.rows[this.#row]!;
          if (csi[2] === 'K') this.rows[this.#row] = csi[1] === '2' ? '' : row.slice(0, this.#column);
          if (csi[2] === 'G') this.#column = Math.max(0, Number(csi[1] || '1') - 1);
          continue;
        }
      }
      if (char === '\r') this.#column = 0;
      else if (char === '\n') {
        this.#row += 1;
        this.#column = 0;
        this.rows[this.#row] ??= '';
      } else {
        const row = this.rows[this.#row]!.padEnd(this.#column);
        this.rows[this.#row] = row.slice(0, this.#column) + char + row.slice(this.#column + 1);
        this.#column += 1;
      }
    }
  }
}

function gpx(seed: number): string {
  const time = new Date(Date.UTC(2026, 0, 1) + seed * 3_600_000).toISOString();
  return `<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg><trkpt lat="47.${seed}" lon="8.5"><time>${time}</time></trkpt><trkpt lat="47.${seed}1" lon="8.5"><time>${time}</time></trkpt></trkseg></trk></gpx>`;
}

let directory: ReturnType<typeof temporaryDirectory>;
let engine: SyncEngine;
let folder: string;
let uploads = 0;

beforeEach(() => {
  directory = temporaryDirectory();
  folder = join(directory.path, 'rides');
  mkdirSync(folder);
  for (let seed = 1; seed <= 5; seed++) writeFileSync(join(folder, `ride-${seed}.gpx`), gpx(seed));
  uploads = 0;
  engine = new SyncEngine({
    ledgerPath: join(directory.path, 'ledger.sqlite'),
    inboxFolder: join(directory.path, 'inbox'),
    folders: [folder],
    uploader: {
      // Each upload takes a moment, as over a network, so the engine is seen syncing.
      uploadRide: async () => {
        const taskId = ++uploads;
        await new Promise((resolve) => setTimeout(resolve, 10));
        return {
          taskId,
          outcome: 'created' as const,
          message: 'Created 1 ride from upload',
          trips: [{ id: taskId } as never],
          routes: [],
        };
      },
    },
  });
});

afterEach(async () => {
  await engine.stop();
  directory.remove();
});

/**
 * One pass over the folder, its five rides uploaded as one batch and reported in text on `terminal`
 * with `stdout`; the report, stopped. The rides are all collected, uploads paused, before the report
 * starts and uploads go on: otherwise, on a loaded machine, uploads began while the folder was still
 * being read, in batches of one or two, which draw no bar (BAR_MINIMUM_RIDES), and the bar's tests
 * failed now and then.
 */
async function syncOnceOn(
  terminal: ReturnType<typeof fakeTerminal>,
  stdout: CliWritable,
): Promise<SyncReport> {
  engine.pause();
  engine.chooseImport(engine.status().sources[0]!.id, { kind: 'all' });
  await engine.syncOnce();
  expect(engine.status().counts).toMatchObject({ found: 5, queued: 5, synced: 0 });
  const report = reportSync(
    engine,
    { stdout, stderr: new Capture(), cwd: directory.path, terminal: terminal as never },
    'text',
  );
  engine.resume();
  await engine.syncOnce();
  report.stop();
  return report;
}

describe('on a terminal', () => {
  it('asks how far back the first sync of a new folder goes, until the answer makes sense', async () => {
    const terminal = fakeTerminal();
    const io: CliIo = {
      stdout: new Capture(),
      stderr: new Capture(),
      cwd: directory.path,
      terminal: terminal as never,
    };
    const answered = answerImportQuestions(engine, io, 'sync');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(terminal.drawn()).toContain(
      `First sync of ${folder}: import all rides (all), only new ones (new)`,
    );
    terminal.input.write('yesterday\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(terminal.drawn()).toContain('Please answer all, new, or a number of days such as 30d.');
    terminal.input.write('30d\n');
    await answered;
    expect(engine.status().sources).toMatchObject([{ awaitingImportChoice: false }]);
  });

  it('draws a progress bar while a batch uploads, and prints a line per ride', async () => {
    const terminal = fakeTerminal();
    const stdout = new Capture();
    const report = await syncOnceOn(terminal, stdout);
    // n of m counts the current batch, which may start before every ride is collected; the bar goes
    // to stdout, in order with the lines.
    expect(stdout.text).toMatch(/syncing \|[█░]+\| \d+\/\d+ rides · \d+ synced, 0 failed/);
    expect(terminal.drawn()).toBe('');
    expect(report.runCounts()).toEqual({ synced: 5, failed: 0 });
    expect(
      stdout.text
        .split('\n')
        // What a line shows once the bar drawn before it on the same row is erased.
        .map((line) => line.split('\r\x1b[K').at(-1) ?? '')
        .filter((line) => /^synced ride-\d\.gpx → trip \d \(Created 1 ride from upload\)$/.test(line)),
    ).toHaveLength(5);
  });

  it('leaves every line it printed on the screen, the summary after them (issue 20: no cursor restore)', async () => {
    const terminal = fakeTerminal();
    const screen = new Screen();
    terminal.output.on('data', (chunk: Buffer) => {
      screen.write(chunk.toString());
    });
    const stdout = {
      write: (text: string): boolean => {
        // The same screen, in order with the terminal's output (which the PassThrough hands on later).
        terminal.output.write(text);
        return true;
      },
      once: () => stdout,
    };
    screen.write('$ rideport sync --once\n');
    await syncOnceOn(terminal, stdout);
    stdout.write('5 synced, 0 failed\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const shown = screen.rows.filter((row) => row !== '');
    expect(shown[0]).toBe('$ rideport sync --once');
    expect(shown.slice(1, 6).map((row) => row.replace(/ → .*/, ''))).toEqual(
      expect.arrayContaining([1, 2, 3, 4, 5].map((seed) => `synced ride-${seed}.gpx`)),
    );
    expect(shown.slice(6)).toEqual(['5 synced, 0 failed']);
    // The bar was there, and went without a trace.
    expect(terminal.drawn()).toContain('syncing |');
    expect(terminal.drawn()).not.toContain('\x1b7');
    expect(terminal.drawn()).not.toContain('\x1b8');
  });
});

describe('on a terminal with stdout going elsewhere (a file, a pipe)', () => {
  it('draws no bar into it: plain lines only', async () => {
    const terminal = { ...fakeTerminal(), stdoutIsTerminal: false };
    const stdout = new Capture();
    await syncOnceOn(terminal, stdout);
    expect(stdout.text).not.toContain('\x1b');
    expect(stdout.lines).toHaveLength(5);
    expect(terminal.drawn()).toBe('');
  });
});

describe('without a terminal', () => {
  it('prints plain lines, and JSON lines with --log-format json', async () => {
    engine.chooseImport(engine.status().sources[0]!.id, { kind: 'all' });
    const stdout = new Capture();
    const report = reportSync(engine, { stdout, stderr: new Capture(), cwd: directory.path }, 'json');
    await engine.syncOnce();
    report.stop();
    const events = stdout.lines.map(
      (line) => JSON.parse(line) as { event: string; file: string; trips: number[] },
    );
    expect(events.filter((event) => event.event === 'synced')).toHaveLength(5);
    expect(events[0]?.event).toBe('synced');
    expect(events[0]?.file).toMatch(/^ride-\d\.gpx$/);
    expect(events[0]?.trips).toHaveLength(1);
  });

  it('prints a ride again when it fails again after a retry, within one run (issue 22)', async () => {
    let clockMs = Date.UTC(2026, 0, 1);
    const failing = new SyncEngine({
      ledgerPath: join(directory.path, 'failing-ledger.sqlite'),
      inboxFolder: join(directory.path, 'failing-inbox'),
      folders: [folder],
      firstImport: { kind: 'all' },
      // Each reading of the clock a millisecond later: every state change has a time of its own.
      nowMs: () => ++clockMs,
      uploader: {
        uploadRide: () => Promise.reject(new ClientError(ClientErrorCode.REJECTED, 'task 1 failed')),
      },
    });
    try {
      const stdout = new Capture();
      const report = reportSync(failing, { stdout, stderr: new Capture(), cwd: directory.path }, 'text');
      await failing.syncOnce();
      report.flush();
      expect(failing.retryFailed()).toBe(5);
      await failing.syncOnce();
      report.stop();
      expect(stdout.lines.filter((line) => line.startsWith('failed ride-'))).toHaveLength(10);
    } finally {
      await failing.stop();
    }
  });

  it('says in words why a ride failed, and gives programs its code only in the JSON line (issue 16)', async () => {
    const failing = new SyncEngine({
      ledgerPath: join(directory.path, 'failing-ledger.sqlite'),
      inboxFolder: join(directory.path, 'failing-inbox'),
      folders: [folder],
      firstImport: { kind: 'all' },
      uploader: {
        uploadRide: () =>
          Promise.reject(
            new ClientError(ClientErrorCode.REJECTED, 'task 1 failed', {
              serverMessages: ['Could not read the file: the file is empty'],
              serverCode: 'RIDEFILE_EMPTY',
              taskId: 1,
            }),
          ),
      },
    });
    try {
      const text = new Capture();
      const textReport = reportSync(
        failing,
        { stdout: text, stderr: new Capture(), cwd: directory.path },
        'text',
      );
      await failing.syncOnce();
      textReport.stop();
      expect(text.lines).toContain('failed ride-1.gpx: Could not read the file: the file is empty');
      expect(text.lines.join('\n')).not.toContain('RIDEFILE_');

      // Failed rides of an earlier pass are history to a new report: this one sees them fail again.
      failing.retryFailed();
      const stdout = new Capture();
      const report = reportSync(failing, { stdout, stderr: new Capture(), cwd: directory.path }, 'json');
      await failing.syncOnce();
      report.stop();
      const failed = stdout.lines
        .map((line) => JSON.parse(line) as { event: string; message: string; code: string | null })
        .filter((event) => event.event === 'failed');
      expect(failed).toHaveLength(5);
      for (const event of failed) {
        expect(event).toMatchObject({
          message: 'Could not read the file: the file is empty',
          code: 'RIDEFILE_EMPTY',
        });
      }
    } finally {
      await failing.stop();
    }
  });
});
