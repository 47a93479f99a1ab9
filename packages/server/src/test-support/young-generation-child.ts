/**
 * Run by young-generation.test.ts in a process of its own, as `rideport up` runs: keeps the young
 * generation small, starts a worker thread of the upload queue (whose start sets V8's flags back), then
 * makes garbage on the main thread, some of it surviving a few collections as a server's requests
 * do, and prints the largest young generation it saw, in bytes.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { createParsePool } from '../queue/pool.js';
import { keepYoungGenerationSmall } from '../young-generation.js';

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

keepYoungGenerationSmall();
const pool = createParsePool(1);
await pool.split({ bytes: new TextEncoder().encode('<gpx></gpx>'), maxBytes: 1024 });
await pool.destroy();

let largest = newSpaceBytes();
let kept: { index: number; text: string }[] = [];
for (let round = 0; round < 60; round++) {
  for (let index = 0; index < 100_000; index++) {
    kept.push({ index, text: `point ${index}` });
    if (kept.length > 20_000) kept = [];
  }
  largest = Math.max(largest, newSpaceBytes());
}
process.stdout.write(`${JSON.stringify({ largest, kept: kept.length })}\n`);
