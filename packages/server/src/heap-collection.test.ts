/**
 * A worker thread gives its garbage back after a large task (issue 36): without the collection V8
 * keeps it for as long as the thread waits, since it collects only when more is allocated.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LARGE_TASK_BYTES } from './heap-collection.js';

const MB = 1024 * 1024;

/**
 * V8's used heap in a fresh process holding 60 MB of garbage, and after a task of `bytes`: 1.5 s later
 * with the thread idle, or at once as the next task starts (`next`).
 */
async function heapAfterTask(bytes: number, next = false): Promise<{ held: number; after: number }> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const module = new URL('./heap-collection.ts', import.meta.url).href;
  const script = `const { collectAfterLargeTask, collectOwedGarbage } = await import(${JSON.stringify(module)});
const { getHeapStatistics } = await import('node:v8');
const used = () => getHeapStatistics().used_heap_size;
let garbage = Array.from({ length: 400000 }, (_, i) => ({ i, text: 'x'.repeat(100) + i }));
const held = used();
garbage = null;
collectAfterLargeTask(${bytes});
${next ? 'collectOwedGarbage();' : 'await new Promise((done) => setTimeout(done, 1500));'}
console.log(JSON.stringify({ held, after: used() }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', tsx, '--input-type=module', '-e', script],
    { env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return JSON.parse(stdout) as { held: number; after: number };
}

describe('collectAfterLargeTask', () => {
  it('collects the garbage of a large task shortly after it, and leaves a small one to V8', async () => {
    const [large, small] = await Promise.all([heapAfterTask(LARGE_TASK_BYTES), heapAfterTask(1024)]);
    const figures = JSON.stringify({ large, small });
    expect(large.held, figures).toBeGreaterThan(50 * MB);
    expect(large.held - large.after, figures).toBeGreaterThan(40 * MB);
    // The same garbage after a small task is still there: the test would see a collection that never ran.
    expect(small.held - small.after, figures).toBeLessThan(10 * MB);
  }, 30_000);

  it('collects before the next task when that comes first, so two large files are never held together', async () => {
    const [large, small] = await Promise.all([
      heapAfterTask(LARGE_TASK_BYTES, true),
      heapAfterTask(1024, true),
    ]);
    const figures = JSON.stringify({ large, small });
    expect(large.held - large.after, figures).toBeGreaterThan(40 * MB);
    expect(small.held - small.after, figures).toBeLessThan(10 * MB);
  }, 30_000);
});
