/**
 * The parse pool (queue/pool.ts): files parse in worker threads that run at a lower priority than the
 * main thread, which keeps answering requests while they parse (issue 5, status.json under load).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createParsePool, type ParsePool } from './pool.js';

const SAMPLE_RIDE = readFileSync(new URL('../../../../fixtures/gpx/sample-ride.gpx', import.meta.url));

/** The nice value of every thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19 - 3]);
  });
}

let pool: ParsePool | null = null;
afterEach(async () => {
  await pool?.destroy();
  pool = null;
});

describe('the parse pool', () => {
  it('parses in worker threads at a lower priority than the main thread', async () => {
    pool = createParsePool(1);
    const outcome = await pool.parse(
      {
        bytes: new Uint8Array(SAMPLE_RIDE),
        filename: 'ride.gpx',
        unzippedLength: null,
        maxBytes: 1 << 26,
        maxPoints: 1e6,
      },
      new AbortController().signal,
    );
    expect(outcome.ok).toBe(true);
    expect(getPriority()).toBe(0);
    if (process.platform === 'linux') {
      // This thread and V8's keep the main priority; the parser's is lowered by 10.
      const niceness = threadNiceness();
      expect(niceness).toContain(10);
      expect(niceness).toContain(0);
    }
  });

  it('starts every thread when it is made, so memory and descriptors do not step up later (issue 22)', async () => {
    pool = createParsePool(2);
    expect(pool.threadCount).toBe(2);
    const request = { filename: 'ride.gpx', unzippedLength: null, maxBytes: 1 << 26, maxPoints: 1e6 };
    // One upload at a time, as a quiet server sees them: no thread is added or ended meanwhile.
    for (let i = 0; i < 3; i++) {
      const outcome = await pool.parse(
        { ...request, bytes: new Uint8Array(SAMPLE_RIDE) },
        new AbortController().signal,
      );
      expect(outcome.ok).toBe(true);
      expect(pool.threadCount).toBe(2);
    }
  });

  it('reads a file the server gzipped up to its own length, and keeps it as the file (issue 36)', async () => {
    pool = createParsePool(1);
    const kept = gzipSync(SAMPLE_RIDE);
    const request = { filename: 'ride.gpx', maxBytes: 1 << 26, maxPoints: 1e6 };
    const read = await pool.parse(
      { ...request, bytes: new Uint8Array(kept), unzippedLength: SAMPLE_RIDE.length },
      new AbortController().signal,
    );
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    // The original is the file, kept as the gzip it came as, not compressed again.
    expect(read.uploadedGzip).toBe(false);
    expect(read.uploadLength).toBe(SAMPLE_RIDE.length);
    expect(Buffer.from(read.gzipped).equals(kept)).toBe(true);

    // Bytes that unzip to more than the file's length (an entry whose data goes on past its end) are
    // refused, not read past it.
    const longer = await pool.parse(
      { ...request, bytes: new Uint8Array(gzipSync(SAMPLE_RIDE)), unzippedLength: SAMPLE_RIDE.length - 1 },
      new AbortController().signal,
    );
    expect(longer).toMatchObject({ ok: false, code: 'RIDEFILE_TOO_LARGE' });
  });
});
