/**
 * A Vitest reporter that records how long every test file took (issue 35, "tests in ten minutes"), so
 * that a slow file is seen rather than guessed. Wired beside the default reporter in vitest.config.ts;
 * writes test-results/durations.json (test-results/durations-slow.json for `npm run test:slow`) at the
 * end of every run, and `npm run test:durations` summarises it (summary.ts).
 *
 * A file's `seconds` is its wall time in the run: from the moment a worker took it (before its imports)
 * to its end, measured here in Vitest's main process, so it includes imports, hooks and waits. Its
 * `testSeconds` is Vitest's own figure: tests and hooks only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** How many of a file's tests the record names, slowest first. */
const SLOWEST_TESTS_KEPT = 5;

export interface FileDuration {
  /** the Vitest project, e.g. "server" or "server-postgres" */
  project: string;
  /** the file's path from the repository root */
  file: string;
  /** wall time from the file's start (imports included) to its end */
  seconds: number;
  /** tests and hooks only (Vitest's module duration) */
  testSeconds: number;
  /** importing the file and what it imports, collecting its tests */
  importSeconds: number;
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  slowestTests: { name: string; seconds: number }[];
}

export interface DurationsRecord {
  /** ISO time at which the run began */
  startedAt: string;
  /** wall time of the whole run, first file start to last file end plus global setup */
  wallSeconds: number;
  /** Vitest's worker count of this run (projects may set their own) */
  maxWorkers: number;
  /** the 1, 5 and 15 minute load averages at the start and at the end of the run (other work on the machine) */
  loadAverage: { start: number[]; end: number[] };
  /** the sum of every file's `seconds` */
  totalFileSeconds: number;
  files: FileDuration[];
}

const round = (seconds: number): number => Math.round(seconds * 1000) / 1000;

export class DurationsReporter implements Reporter {
  readonly #outputFile: string;
  #vitest: Vitest | undefined;
  #runStart = 0;
  #loadAtStart: number[] = [];
  readonly #queuedAt = new Map<string, number>();
  readonly #endedAt = new Map<string, number>();

  /** @param outputFile where the record goes, absolute or from the working directory */
  constructor(outputFile: string) {
    this.#outputFile = outputFile;
  }

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
    this.#runStart = Date.now();
    this.#loadAtStart = loadavg();
  }

  onTestRunStart(): void {
    this.#runStart = Date.now();
    this.#loadAtStart = loadavg();
    this.#queuedAt.clear();
    this.#endedAt.clear();
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.#queuedAt.set(testModule.id, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    this.#endedAt.set(testModule.id, Date.now());
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const root = this.#vitest?.config.root ?? process.cwd();
    const now = Date.now();
    const files = testModules.map((testModule): FileDuration => {
      const diagnostic = testModule.diagnostic();
      const tests = [...testModule.children.allTests()];
      const states = tests.map((test) => test.result().state);
      const queued = this.#queuedAt.get(testModule.id);
      const ended = this.#endedAt.get(testModule.id) ?? now;
      const importSeconds =
        (diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.prepareDuration) / 1000;
      const testSeconds = diagnostic.duration / 1000;
      return {
        project: testModule.project.name,
        file: relative(root, testModule.moduleId),
        // A file that was never queued here (a rerun in watch mode) falls back to Vitest's own figures.
        seconds: round(queued === undefined ? importSeconds + testSeconds : (ended - queued) / 1000),
        testSeconds: round(testSeconds),
        importSeconds: round(importSeconds),
        tests: tests.length,
        passed: states.filter((state) => state === 'passed').length,
        failed: states.filter((state) => state === 'failed').length,
        skipped: states.filter((state) => state === 'skipped').length,
        slowestTests: tests
          .map((test) => ({ name: test.fullName, seconds: round((test.diagnostic()?.duration ?? 0) / 1000) }))
          .sort((a, b) => b.seconds - a.seconds)
          .slice(0, SLOWEST_TESTS_KEPT)
          .filter((test) => test.seconds > 0),
      };
    });
    files.sort((a, b) => b.seconds - a.seconds);
    const record: DurationsRecord = {
      startedAt: new Date(this.#runStart).toISOString(),
      wallSeconds: round((now - this.#runStart) / 1000),
      // Vitest's own default when the config names none (resolveMaxWorkers in Vitest 4, run mode).
      maxWorkers: this.#vitest?.config.maxWorkers || Math.max(availableParallelism() - 1, 1),
      loadAverage: {
        start: this.#loadAtStart.map((load) => Math.round(load * 100) / 100),
        end: loadavg().map((load) => Math.round(load * 100) / 100),
      },
      totalFileSeconds: round(files.reduce((sum, file) => sum + file.seconds, 0)),
      files,
    };
    mkdirSync(dirname(this.#outputFile), { recursive: true });
    writeFileSync(this.#outputFile, `${JSON.stringify(record, null, 2)}\n`);
  }
}
