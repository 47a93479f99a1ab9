import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FolderWatch, MAX_WATCH_DEPTH } from './folder-watch.js';
import { tempFolder, type TempFolder } from './test-support/rides.js';

let root: TempFolder;
let watching: FolderWatch | undefined;
let hints = 0;

beforeEach(() => {
  root = tempFolder('rideport-watch-');
  hints = 0;
});

afterEach(() => {
  watching?.close();
  root.remove();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const start = async (): Promise<FolderWatch> =>
  (watching = await FolderWatch.start([root.path], () => {
    hints += 1;
  }));

it('watches each folder once, however many files it holds (issue 22)', async () => {
  for (let index = 0; index < 300; index++) root.write(`Activity/ride-${index}.gpx`, 'ride');
  root.write('Courses/course.fit', 'course');
  const folders = await start();
  expect(folders.size).toBe(3);
  root.write('Activity/new.gpx', 'ride');
  await until(() => hints > 0, 'a hint for the new file');
  expect(folders.size).toBe(3);
});

it('hints at files in folders made after it started, and forgets folders removed', async () => {
  const folders = await start();
  mkdirSync(join(root.path, '2026', '05'), { recursive: true });
  await until(() => folders.size === 3, 'the new folders watched');
  hints = 0;
  writeFileSync(join(root.path, '2026', '05', 'ride.gpx'), 'ride');
  await until(() => hints > 0, 'a hint for a file in the new folder');
  rmSync(join(root.path, '2026'), { recursive: true });
  await until(() => folders.size === 1, 'the removed folders forgotten');
});

it(`follows folders ${MAX_WATCH_DEPTH} levels deep, no deeper`, async () => {
  const levels = Array.from({ length: MAX_WATCH_DEPTH + 2 }, (_, index) => `level-${index + 1}`);
  mkdirSync(join(root.path, ...levels), { recursive: true });
  const folders = await start();
  expect(folders.size).toBe(MAX_WATCH_DEPTH + 1);
});

it('watches nothing after close, and a missing folder is no error', async () => {
  const folders = await FolderWatch.start([join(root.path, 'not-there')], () => {
    hints += 1;
  });
  expect(folders.size).toBe(0);
  const watched = await start();
  watched.close();
  root.write('ride.gpx', 'ride');
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(hints).toBe(0);
  expect(watched.size).toBe(0);
});
