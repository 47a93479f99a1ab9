/**
 * The documentation check (issue 35, scripts/check-docs.ts) on small repositories made in temporary
 * folders: both halves, links in the Markdown files and documents named in source comments, find what
 * is broken and pass what is whole.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkDocs,
  githubSlug,
  markdownAnchors,
  namedDocuments,
  sourceComments,
} from '../scripts/check-docs.js';

const folders: string[] = [];

/** A repository (git, nothing committed) holding the given files. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'rideport-check-docs-'));
  folders.push(root);
  execFileSync('git', ['init', '--quiet'], { cwd: root });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const sound = {
  'package.json': '{"name": "x", "private": true}\n',
  'README.md': [
    '# Project',
    '',
    'See [the serving page](docs/operators/serving.md#one-server-per-data-directory), the',
    '[`rideport` command](docs/operators/serving.md#rideport-serve-and-rideport-worker), and',
    '[below](#a-heading-with-code-and-punctuation). [An image](docs/images/shot.png),',
    '[a folder](docs/), [a site](https://example.com/x.md#nothing), `[not a link](missing.md)`.',
    '',
    '## A heading with `code`, and punctuation!',
    '',
    '```sh',
    'cat [not a link](missing.md)',
    '```',
    '',
  ].join('\n'),
  'docs/operators/serving.md': [
    '# Serving',
    '',
    '## One server per data directory',
    '',
    '## `rideport serve` and `rideport worker`',
    '',
    'Back to [the front page](../../README.md) and [decisions §5](../contributors/decisions.md#5-legacy-interface).',
    '',
  ].join('\n'),
  'docs/contributors/decisions.md': '# Decisions\n\n## 5. Legacy interface\n',
  'docs/images/shot.png': 'png',
  'packages/ridefile/package.json': '{"name": "@x/ridefile"}\n',
  'packages/ridefile/CHANGELOG.md': '# Changes\n',
  'packages/ridefile/README.md':
    'See [the changes](CHANGELOG.md) and [the docs](../../docs/operators/serving.md).\n',
  'packages/ridefile/src/read.ts': [
    '/** Reads rides (docs/contributors/decisions.md §5; docs/operators/serving.md#one-server-per-data-directory). */',
    "export const url = 'https://example.com/design.md'; // a URL is not a document of ours",
    "export const text = 'design.md and decisions.md in a string are not comments';",
    'export const re = /design\\.md/; // the README.md and the CHANGELOG.md of this package',
    'export const tpl = `${url} // design.md`;',
  ].join('\n'),
  'scripts/release.ts': '// writes CHANGELOG.md of each package, and SOURCES.md of the corpus is external\n',
  'style.css': '/* see docs/operators/serving.md */\nbody { color: red; }\n',
  '.github/workflows/ci.yml': '# runs the README.md test command\non: push\n',
  '.ci/run': '#!/usr/bin/env bash\n# the README.md test command\nnpm test\n',
};

describe('check-docs', () => {
  it('passes a repository whose links, anchors and named documents all resolve', () => {
    expect(checkDocs(repository(sound))).toEqual([]);
  });

  it('finds a link to a file that does not exist, and a link leaving the repository', () => {
    const root = repository({
      ...sound,
      'docs/README.md':
        '# Docs\n\n- [Limits](operators/limits.md)\n- [Spec](../../shared/spec/decisions.md)\n',
    });
    expect(checkDocs(root, { docsOnly: true })).toEqual([
      {
        file: 'docs/README.md',
        line: 3,
        message: 'link operators/limits.md: docs/operators/limits.md does not exist',
      },
      {
        file: 'docs/README.md',
        line: 4,
        message: 'link ../../shared/spec/decisions.md: points outside the repository',
      },
    ]);
  });

  it('finds an anchor that is no heading of the file it points into, here or in another file', () => {
    const root = repository({
      ...sound,
      'app/README.md':
        '# App\n\n[Where](#where-data-lives) and [serving](../docs/operators/serving.md#serving-it).\n',
    });
    expect(checkDocs(root, { docsOnly: true })).toEqual([
      {
        file: 'app/README.md',
        line: 3,
        message: 'link #where-data-lives: app/README.md has no heading #where-data-lives',
      },
      {
        file: 'app/README.md',
        line: 3,
        message:
          'link ../docs/operators/serving.md#serving-it: docs/operators/serving.md has no heading #serving-it',
      },
    ]);
  });

  it('finds comments naming documents the repository does not hold, but only in the full check', () => {
    const root = repository({
      ...sound,
      'packages/ridefile/src/fit.ts': [
        '// The wheel-sensor rule (design.md, `@rideport/ridefile`; decisions.md §5).',
        '/**',
        ' * Points as platform-api.md says, and docs/library/formats.md#wheel-sensors.',
        ' */',
        'export const x = 1;',
      ].join('\n'),
      'style.css': '/* see docs/operators/serving.md#no-such-heading */\n',
      '.ci/run': '#!/usr/bin/env bash\n# as design.md says\nnpm test\n',
    });
    expect(checkDocs(root, { docsOnly: true })).toEqual([]);
    expect(checkDocs(root)).toEqual([
      { file: '.ci/run', line: 2, message: 'comment names design.md, which the repository does not hold' },
      {
        file: 'packages/ridefile/src/fit.ts',
        line: 1,
        message: 'comment names design.md, which the repository does not hold',
      },
      {
        file: 'packages/ridefile/src/fit.ts',
        line: 1,
        message: 'comment names decisions.md, which the repository does not hold',
      },
      {
        file: 'packages/ridefile/src/fit.ts',
        line: 3,
        message: 'comment names platform-api.md, which the repository does not hold',
      },
      {
        file: 'packages/ridefile/src/fit.ts',
        line: 3,
        message: 'comment names docs/library/formats.md, which the repository does not hold',
      },
      {
        file: 'style.css',
        line: 1,
        message:
          'comment names docs/operators/serving.md#no-such-heading: docs/operators/serving.md has no such heading',
      },
    ]);
  });

  it('makes GitHub’s anchors', () => {
    expect(githubSlug('One server per data directory')).toBe('one-server-per-data-directory');
    expect(githubSlug('5. Legacy interface')).toBe('5-legacy-interface');
    expect(githubSlug('Text from files (@rideport/ridefile)')).toBe('text-from-files-rideportridefile');
    expect(githubSlug('Damaged and partial files, said out loud')).toBe(
      'damaged-and-partial-files-said-out-loud',
    );
    expect(githubSlug('Node ≥ 20.19 — and snake_case')).toBe('node--2019--and-snake_case');
    expect([...markdownAnchors('# A\n\n## A\n\nSetext\n------\n\n<a id="custom"></a>\n')]).toEqual([
      'a',
      'a-1',
      'setext',
      'custom',
    ]);
  });

  it('reads comments, not strings, regular expressions or template literals', () => {
    const source = [
      "const a = '// not a comment'; // one",
      'const b = /\\/\\* not a comment/.test(a) ? `x ${a /* two */} // not` : 1;',
      '/* three',
      ' * lines */',
    ].join('\n');
    expect(sourceComments('x.ts', source)).toEqual([
      { text: ' one', line: 1 },
      { text: ' two ', line: 2 },
      { text: ' three\n * lines ', line: 3 },
    ]);
    expect(namedDocuments('see https://x.org/a.md, README.md#top and docs/api/ or *.md')).toEqual([
      { name: 'README.md', anchor: 'top' },
      { name: 'docs/api/', anchor: null },
    ]);
  });
});
