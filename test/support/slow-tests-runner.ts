/**
 * Vitest's test runner, which also splits the files that test/slow-tests.ts names test by test (issue
 * 35): in `npm test` their slow tests are skipped, saying "slow: runs in npm run test:slow"; in
 * `npm run test:slow` (vitest.config.ts sets RIDEPORT_TEST_RUN=slow) only those tests run, and the rest
 * of the file is skipped, saying that it runs in npm test. Whole files that are slow never reach it:
 * vitest.config.ts leaves them out of one run and puts them in the other.
 *
 * The tests are marked after collection and before any hook runs, so a suite left with no test to run is
 * skipped whole, its beforeAll and afterAll included.
 */
import { relative } from 'node:path';
import type {
  RunnerTask as Task,
  RunnerTaskResult as TaskResult,
  RunnerTestFile as File,
  RunnerTestSuite as Suite,
  VitestTestRunner as VitestRunner,
} from 'vitest';
import { TestRunner } from 'vitest';
import { REPOSITORY_ROOT, SLOW_IN_FAST_RUN_NOTE, SLOW_TESTS, FAST_IN_SLOW_RUN_NOTE } from '../slow-tests.js';

/** A task's name under its describe blocks, as Vitest's reporters print it ("outer > inner > test"). */
function fullName(task: Task): string {
  const names: string[] = [];
  for (let current: Task | undefined = task; current !== undefined && current !== task.file;) {
    names.unshift(current.name);
    current = current.suite;
  }
  return names.join(' > ');
}

/** Skips a test with `note`, as ctx.skip(note) would: reporters print the note beside it. */
function skip(test: Task, note: string): void {
  test.mode = 'skip';
  test.result = { state: 'skip', note } as TaskResult;
}

/**
 * Marks a suite skipped when it has nothing left to run, so that its hooks do not run either; true
 * then. `skippedWhole` collects the suites it marks.
 */
function skipEmptySuites(suite: Suite, skippedWhole: Suite[]): boolean {
  let running = false;
  for (const child of suite.tasks) {
    if (child.mode === 'skip' || child.mode === 'todo') continue;
    if (child.type === 'suite' ? !skipEmptySuites(child, skippedWhole) : true) running = true;
  }
  if (!running && suite.mode !== 'skip' && suite.mode !== 'todo') {
    suite.mode = 'skip';
    skippedWhole.push(suite);
  }
  return !running;
}

/** Every test in `suite`, at any depth. */
function testsOf(suite: Suite): Task[] {
  return suite.tasks.flatMap((task) => (task.type === 'suite' ? testsOf(task) : [task]));
}

// Vitest loads a runner (vitest.config.ts, `runner`) through its default export.
// eslint-disable-next-line no-restricted-syntax
export default class SlowTestsRunner extends TestRunner {
  async onCollected(files: File[]): Promise<void> {
    const slowRun = this.config.env['RIDEPORT_TEST_RUN'] === 'slow';
    const skippedWhole: Suite[] = [];
    for (const file of files) {
      const path = relative(REPOSITORY_ROOT, file.filepath).replaceAll('\\', '/');
      const slowNames = new Set(SLOW_TESTS.filter((entry) => entry.file === path).map((entry) => entry.test));
      if (slowNames.size === 0 || slowNames.has(undefined)) continue;
      for (const test of testsOf(file)) {
        // A test the file itself skips (skipIf, runIf, todo) stays as it is.
        if (test.mode !== 'run' && test.mode !== 'queued') continue;
        const slow = slowNames.has(fullName(test));
        if (slow && !slowRun) skip(test, SLOW_IN_FAST_RUN_NOTE);
        if (!slow && slowRun) skip(test, FAST_IN_SLOW_RUN_NOTE);
      }
      skipEmptySuites(file, skippedWhole);
    }
    // Vitest runs no test of a skipped suite, and so says nothing of them: say here that they skipped.
    const tests = skippedWhole.flatMap(testsOf);
    if (tests.length > 0) {
      await (this as VitestRunner).onTaskUpdate?.(
        tests.map((test) => [test.id, test.result, test.meta]),
        tests.map((test) => [test.id, 'test-finished', undefined]),
      );
    }
  }
}
