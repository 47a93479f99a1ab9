import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogDestination, MAX_PENDING_BYTES, RETRY_AFTER_FAILURE_MS } from './log-destination.js';
import { Capture, temporaryDirectory } from './test-support/run.js';

let folder: ReturnType<typeof temporaryDirectory>;
const fds: number[] = [];

beforeEach(() => {
  folder = temporaryDirectory();
});
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  folder.remove();
});

/** An output whose writes fail while `failing` says so (the tests' stand-in without a descriptor). */
class FlakyOutput extends Capture {
  failing = true;

  override write(chunk: string): boolean {
    if (this.failing) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    return super.write(chunk);
  }
}

async function settled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('LogDestination', () => {
  it("writes lines to the output's file descriptor, in order", async () => {
    const path = join(folder.path, 'log');
    const fd = openSync(path, 'w');
    fds.push(fd);
    const stderr = new Capture();
    const destination = new LogDestination({ fd, write: () => true, once: () => undefined }, stderr);
    for (let line = 0; line < 500; line++) expect(destination.write(`{"line":${line}}\n`)).toBe(true);
    await destination.idle();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { line: number }).line)).toEqual(
      Array.from({ length: 500 }, (_, index) => index),
    );
    expect(stderr.text).toBe('');
  });

  it('drops lines when the descriptor fails, says so once on stderr, and never throws', async () => {
    const path = join(folder.path, 'log');
    writeFileSync(path, '');
    // Writing to a descriptor opened for reading fails (EBADF), as a broken destination does.
    const fd = openSync(path, 'r');
    fds.push(fd);
    const stderr = new Capture();
    let nowMs = 0;
    const destination = new LogDestination({ fd, write: () => true, once: () => undefined }, stderr, {
      nowMs: () => nowMs,
    });
    for (let round = 0; round < 5; round++) {
      for (let line = 0; line < 100; line++) expect(destination.write(`line ${line}\n`)).toBe(true);
      await destination.idle();
      nowMs += RETRY_AFTER_FAILURE_MS;
    }
    expect(stderr.lines).toHaveLength(1);
    expect(stderr.lines[0]).toMatch(
      /^rideport: the log cannot be written \(EBADF: bad file descriptor, write\); log lines are dropped until it works again, and rideport keeps running$/,
    );
  });

  it('tries again after a failure and says how many lines were lost once it writes again', () => {
    const output = new FlakyOutput();
    const stderr = new Capture();
    let nowMs = 0;
    const destination = new LogDestination(output, stderr, { nowMs: () => nowMs });
    destination.write('first\n');
    destination.write('second\nthird\n');
    nowMs += RETRY_AFTER_FAILURE_MS / 2;
    destination.write('fourth\n');
    expect(stderr.lines).toEqual([
      'rideport: the log cannot be written (EIO: i/o error, write); log lines are dropped until it works again, and rideport keeps running',
    ]);
    output.failing = false;
    nowMs += RETRY_AFTER_FAILURE_MS;
    destination.write('fifth\n');
    expect(output.text).toBe('fifth\n');
    expect(stderr.lines[1]).toBe('rideport: the log is written again; 4 lines were dropped');
  });

  it('keeps at most 1 MB waiting for a reader that does not keep up, says so, and goes on when it reads again', async () => {
    const path = join(folder.path, 'fifo');
    execFileSync('mkfifo', [path]);
    // Read and write: opens without a reader; writes fill the pipe (64 KiB) and then wait for one.
    const fd = openSync(path, 'r+');
    fds.push(fd);
    const stderr = new Capture();
    const destination = new LogDestination({ fd, write: () => true, once: () => undefined }, stderr);
    const total = 3 * (MAX_PENDING_BYTES / 1024);
    for (let line = 0; line < total; line++) destination.write(`${String(line).padStart(1023, '.')}\n`);
    await settled();
    expect(stderr.lines).toEqual([
      'rideport: the log cannot be written (it does not keep up: more than 1 MB of lines wait to be written); log lines are dropped until it works again, and rideport keeps running',
    ]);
    // A reader at last: what waited is written, and stderr says what was lost.
    const reader = createReadStream(path);
    let received = '';
    reader.on('data', (chunk) => (received += chunk.toString()));
    for (let waited = 0; stderr.lines.length < 2; waited += 20) {
      if (waited > 10_000) throw new Error(`still waiting: ${stderr.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await destination.idle();
    const dropped = Number(/(\d+) lines were dropped$/.exec(stderr.lines[1]!)?.[1]);
    const receivedLines = (): string[] => received.split('\n').filter((line) => line !== '');
    // Everything is written; the reader may still be reading it.
    for (let waited = 0; receivedLines().length + dropped < total; waited += 20) {
      if (waited > 10_000) throw new Error(`received ${receivedLines().length} lines and ${dropped} dropped`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    reader.destroy();
    const lines = receivedLines();
    expect(lines.length + dropped).toBe(total);
    expect(lines.every((line) => line.length === 1023)).toBe(true);
    // In order, with a gap where lines were dropped.
    const numbers = lines.map((line) => Number(line.replace(/^\.+/, '')));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });
});
