import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./test-support/young-generation-child.ts', import.meta.url));
const MB = 1024 * 1024;

/** The largest young generation the child saw, started with `nodeOptions` as its NODE_OPTIONS. */
async function largestYoungGeneration(nodeOptions: string): Promise<number> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', tsx, '--conditions=@rideport/source', CHILD],
    { env: { ...process.env, NODE_OPTIONS: nodeOptions } },
  );
  return (JSON.parse(stdout) as { largest: number }).largest;
}

// Issue 22: a process that runs for weeks keeps V8's young generation at its first size (1 MB per
// semi-space), even after a worker thread has started and set V8's flags back.
describe('keepYoungGenerationSmall', () => {
  it('keeps the main thread’s young generation at its first size after a worker thread starts', async () => {
    expect(await largestYoungGeneration('')).toBeLessThanOrEqual(4 * MB);
  });

  it('leaves Node as it was told when a semi-space flag is given (and that load would grow it)', async () => {
    expect(await largestYoungGeneration('--max-semi-space-size=16')).toBeGreaterThan(8 * MB);
  });
});
