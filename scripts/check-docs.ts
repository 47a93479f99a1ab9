/**
 * The documentation check (issue 35), run by `npm run docs:check` after TypeDoc's:
 *
 * 1. Links. Every relative link in README.md, docs/**, packages/*\/README.md and app/README.md must
 *    point to a file or folder the repository holds, and an `#anchor` must be a heading of the Markdown
 *    file it points into (GitHub's slugs: lower case, spaces to hyphens, punctuation dropped).
 * 2. Source comments. A comment in a source file (*.ts, *.js, *.cts, *.mjs, *.css, *.yml, and the
 *    scripts under .ci/) that names a document (a file name ending in `.md`, or a path under docs/)
 *    must name one the repository holds, so that a reader can follow it.
 *
 * `--docs-only` runs the first half alone. Usage: tsx scripts/check-docs.ts [--docs-only] [--root <dir>]
 * It prints one line per problem, `path:line: what`, and exits 1 when there is any.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One thing wrong, at a line of a file (the path relative to the repository root, with `/`). */
export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

/**
 * Documents that comments may name although the repository does not hold them, each with the reason.
 * The corpus of real ride files lives beside the repository by design and is never copied into it.
 */
export const EXTERNAL_DOCUMENTS: Readonly<Record<string, string>> = {
  'SOURCES.md': 'the index of the ride corpus in ../shared/corpus (docs/contributors/tests.md)',
};

const SOURCE_EXTENSIONS = ['.ts', '.js', '.cts', '.mjs', '.css', '.yml'];

/** The files of the repository: what git tracks, and new files it does not ignore. */
export function repositoryFiles(root: string): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return [...new Set(out.split('\0').filter((name) => name !== ''))]
      .filter((name) => existsSync(join(root, name)))
      .sort();
  } catch {
    return walk(root, '').sort();
  }
}

function walk(root: string, folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const name = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) files.push(...walk(root, name));
    else files.push(name);
  }
  return files;
}

/** The Markdown files whose links are checked. */
export function isCheckedMarkdown(file: string): boolean {
  return (
    file === 'README.md' ||
    (file.startsWith('docs/') && file.endsWith('.md')) ||
    /^packages\/[^/]+\/README\.md$/.test(file) ||
    file === 'app/README.md'
  );
}

/** The source files whose comments are checked. */
export function isCheckedSource(file: string): boolean {
  if (file.startsWith('.ci/')) return !file.endsWith('.json');
  return SOURCE_EXTENSIONS.some((extension) => file.endsWith(extension));
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's text as GitHub renders it: code spans, emphasis and links reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(.+?)\1/g, '$2');
}

/** Lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines = markdown.split(/\r?\n/);
  const result: { text: string; line: number }[] = [];
  let fence: string | null = null;
  lines.forEach((text, index) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence !== null) {
      if (opening !== null && opening[1]!.startsWith(fence)) fence = null;
      return;
    }
    if (opening !== null) {
      fence = opening[1]!;
      return;
    }
    result.push({ text, line: index + 1 });
  });
  return result;
}

/** Every anchor a Markdown text offers: its headings' slugs (repeats numbered) and HTML ids. */
export function markdownAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (slug: string): void => {
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  };
  const lines = proseLines(markdown);
  lines.forEach(({ text }, index) => {
    const atx = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text);
    if (atx !== null) add(githubSlug(headingText(atx[1]!)));
    const next = lines[index + 1];
    if (
      atx === null &&
      next !== undefined &&
      next.line === lines[index]!.line + 1 &&
      /^ {0,3}(=+|-+)[ \t]*$/.test(next.text) &&
      text.trim() !== '' &&
      !/^ {0,3}([-*+>|]|\d+[.)])/.test(text)
    ) {
      add(githubSlug(headingText(text)));
    }
    for (const match of text.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(match[1]!);
  });
  return anchors;
}

/** The link targets of a Markdown text (inline links, images and reference definitions), with lines. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
    for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1]!.replace(/^<|>$/g, ''), line });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(prose);
    if (definition !== null) links.push({ target: definition[1]!.replace(/^<|>$/g, ''), line });
  }
  return links;
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** Where a path leads from a file, relative to the root with `/`, or null when it leaves the root. */
function inside(root: string, from: string, path: string): string | null {
  const absolute = path.startsWith('/') ? join(root, path) : resolve(root, dirname(from), path);
  const rel = relative(root, absolute);
  if (rel.startsWith('..') || resolve(root, rel) !== absolute) return null;
  return rel.split(sep).join('/');
}

/** Checks every relative link of the given Markdown files. */
export function checkMarkdownLinks(root: string, files: string[]): DocProblem[] {
  const problems: DocProblem[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (file: string): Set<string> => {
    let anchors = anchorCache.get(file);
    if (anchors === undefined) {
      anchors = markdownAnchors(readFileSync(join(root, file), 'utf8'));
      anchorCache.set(file, anchors);
    }
    return anchors;
  };
  for (const file of files) {
    for (const { target, line } of markdownLinks(readFileSync(join(root, file), 'utf8'))) {
      if (isExternal(target)) continue;
      const hash = target.indexOf('#');
      const rawPath = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      let path: string;
      try {
        path = decodeURIComponent(rawPath);
      } catch {
        path = rawPath;
      }
      const linked = path === '' ? file : inside(root, file, path);
      if (linked === null) {
        problems.push({ file, line, message: `link ${target}: points outside the repository` });
        continue;
      }
      if (!existsSync(join(root, linked))) {
        problems.push({ file, line, message: `link ${target}: ${linked} does not exist` });
        continue;
      }
      if (anchor === null || anchor === '' || !linked.endsWith('.md')) continue;
      if (!statSync(join(root, linked)).isFile()) continue;
      if (!anchorsOf(linked).has(anchor)) {
        problems.push({ file, line, message: `link ${target}: ${linked} has no heading #${anchor}` });
      }
    }
  }
  return problems;
}

/** A comment's text and the line it starts on. */
export interface SourceComment {
  text: string;
  line: number;
}

/** The comments of a source file, by its kind: JavaScript and TypeScript, CSS, or `#` comments. */
export function sourceComments(file: string, source: string): SourceComment[] {
  if (/\.(ts|js|cts|mts|mjs|cjs)$/.test(file)) return scriptComments(source, true);
  if (file.endsWith('.css')) return scriptComments(source, false);
  return hashComments(source);
}

function hashComments(source: string): SourceComment[] {
  const comments: SourceComment[] = [];
  source.split(/\r?\n/).forEach((text, index) => {
    const match = /(?:^|\s)#(?!!)(.*)$/.exec(text);
    if (match !== null) comments.push({ text: match[1]!, line: index + 1 });
  });
  return comments;
}

/**
 * Comments of JavaScript, TypeScript or CSS: a small scanner that steps over strings, template
 * literals (and the code inside their `${}`) and regular-expression literals, so that `'//'` or
 * `/\/*\/` in code is never taken for a comment.
 */
function scriptComments(source: string, script: boolean): SourceComment[] {
  const comments: SourceComment[] = [];
  let line = 1;
  let i = 0;
  let previous = ''; // the last significant character of code, to tell a regex from a division
  let previousWord = '';
  const braces: number[] = []; // per open template literal: the depth of `{` inside its `${`
  const n = source.length;
  const advance = (to: number): void => {
    for (let k = i; k < to && k < n; k++) if (source[k] === '\n') line++;
    i = to;
  };
  const skipString = (quote: string): void => {
    let k = i + 1;
    while (k < n && source[k] !== quote && source[k] !== '\n') k += source[k] === '\\' ? 2 : 1;
    advance(k + 1);
  };
  /** From inside a template literal, to its end or to a `${`; returns true at a `${`. */
  const skipTemplate = (): boolean => {
    let k = i;
    while (k < n) {
      if (source[k] === '\\') k += 2;
      else if (source[k] === '`') {
        advance(k + 1);
        return false;
      } else if (source[k] === '$' && source[k + 1] === '{') {
        advance(k + 2);
        return true;
      } else k++;
    }
    advance(n);
    return false;
  };
  const regexCanStart = (): boolean =>
    previous === '' ||
    '(,=:[!&|?{};+-*%<>~^'.includes(previous) ||
    [
      'return',
      'typeof',
      'case',
      'do',
      'else',
      'in',
      'of',
      'new',
      'delete',
      'void',
      'throw',
      'yield',
      'await',
    ].includes(previousWord);
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/' && script) {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      comments.push({ text: source.slice(i + 2, stop), line });
      advance(stop);
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      comments.push({ text: source.slice(i + 2, end === -1 ? n : end), line });
      advance(stop);
    } else if (c === '"' || c === "'") {
      skipString(c);
      previous = 'a';
      previousWord = '';
    } else if (c === '`' && script) {
      advance(i + 1);
      if (skipTemplate()) braces.push(0);
      previous = 'a';
      previousWord = '';
    } else if (c === '/' && script && regexCanStart()) {
      let k = i + 1;
      let inClass = false;
      while (k < n && source[k] !== '\n') {
        const r = source[k]!;
        if (r === '\\') k += 2;
        else if (r === '/' && !inClass) break;
        else {
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          k++;
        }
      }
      advance(k + 1);
      while (i < n && /[a-z]/i.test(source[i]!)) advance(i + 1);
      previous = 'a';
      previousWord = '';
    } else if (script && braces.length > 0 && (c === '{' || c === '}')) {
      if (c === '{') braces[braces.length - 1]!++;
      else if (braces[braces.length - 1] === 0) {
        braces.pop();
        advance(i + 1);
        if (skipTemplate()) braces.push(0);
        previous = 'a';
        previousWord = '';
        continue;
      } else braces[braces.length - 1]!--;
      previous = c;
      previousWord = '';
      advance(i + 1);
    } else if (/\s/.test(c)) {
      advance(i + 1);
    } else if (/[\w$]/.test(c)) {
      let k = i;
      while (k < n && /[\w$]/.test(source[k]!)) k++;
      previousWord = source.slice(i, k);
      previous = 'a';
      advance(k);
    } else {
      previous = c === ')' || c === ']' ? 'a' : c;
      previousWord = '';
      advance(i + 1);
    }
  }
  return comments;
}

/** The documents a comment names: `*.md` names and paths under docs/, with an anchor when given. */
export function namedDocuments(comment: string): { name: string; anchor: string | null }[] {
  const withoutUrls = comment.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  const named: { name: string; anchor: string | null }[] = [];
  const pattern = /(?<![\w./@-])((?:\.{1,2}\/)*[\w./-]*\w\.md|docs\/[\w./-]*[\w/])(?![\w-])(#[\w-]+)?/g;
  for (const match of withoutUrls.matchAll(pattern)) {
    named.push({ name: match[1]!, anchor: match[2] === undefined ? null : match[2].slice(1) });
  }
  return named;
}

/** The folders of the workspace packages, each of which may hold its own README.md and CHANGELOG.md. */
function packageFolders(root: string, files: string[]): string[] {
  return files
    .filter((file) => file.endsWith('/package.json') && !file.includes('node_modules/'))
    .map((file) => posix.dirname(file))
    .filter((folder) => existsSync(join(root, folder)));
}

/**
 * Checks the documents the comments of the given source files name. A path with a folder is read from
 * the repository root (or beside the file, for `./` and `../`); a bare name resolves beside the file,
 * at the root of its package, at the repository root, or at the root of any workspace package ("each
 * package's CHANGELOG.md"). A bare name of a document kept outside the repository does not.
 */
export function checkSourceComments(root: string, files: string[], allFiles: string[] = files): DocProblem[] {
  const problems: DocProblem[] = [];
  const packages = packageFolders(root, allFiles);
  const anchorCache = new Map<string, Set<string>>();
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    const folder = posix.dirname(file);
    const ownPackage = packages
      .filter((dir) => dir === '.' || folder === dir || folder.startsWith(`${dir}/`))
      .sort((a, b) => b.length - a.length)[0];
    for (const comment of sourceComments(file, source)) {
      const lines = comment.text.split('\n');
      lines.forEach((text, offset) => {
        for (const { name, anchor } of namedDocuments(text)) {
          if (!name.includes('/') && EXTERNAL_DOCUMENTS[name] !== undefined) continue;
          const candidates = name.includes('/')
            ? name.startsWith('./') || name.startsWith('../')
              ? [inside(root, file, name)]
              : [inside(root, 'x', name)]
            : [
                inside(root, file, name),
                ownPackage === undefined ? null : inside(root, 'x', posix.join(ownPackage, name)),
                name,
                ...packages.map((dir) => inside(root, 'x', posix.join(dir, name))),
              ];
          const found = candidates.find(
            (candidate): candidate is string => candidate !== null && existsSync(join(root, candidate)),
          );
          const at = { file, line: comment.line + offset };
          if (found === undefined) {
            problems.push({ ...at, message: `comment names ${name}, which the repository does not hold` });
            continue;
          }
          if (anchor === null || !found.endsWith('.md')) continue;
          let anchors = anchorCache.get(found);
          if (anchors === undefined) {
            anchors = markdownAnchors(readFileSync(join(root, found), 'utf8'));
            anchorCache.set(found, anchors);
          }
          if (!anchors.has(anchor)) {
            problems.push({
              ...at,
              message: `comment names ${name}#${anchor}: ${found} has no such heading`,
            });
          }
        }
      });
    }
  }
  return problems;
}

/** The whole check on a repository: links, and (unless docsOnly) source comments. */
export function checkDocs(root: string, options: { docsOnly?: boolean } = {}): DocProblem[] {
  const files = repositoryFiles(root);
  const problems = checkMarkdownLinks(root, files.filter(isCheckedMarkdown));
  if (options.docsOnly !== true) {
    problems.push(...checkSourceComments(root, files.filter(isCheckedSource), files));
  }
  return problems;
}

function main(args: string[]): number {
  const docsOnly = args.includes('--docs-only');
  const rootIndex = args.indexOf('--root');
  const root = resolve(
    rootIndex === -1 ? join(dirname(fileURLToPath(import.meta.url)), '..') : (args[rootIndex + 1] ?? '.'),
  );
  const unknown = args.filter(
    (arg, index) =>
      arg !== '--docs-only' && arg !== '--root' && !(rootIndex !== -1 && index === rootIndex + 1),
  );
  if (unknown.length > 0) {
    console.error(
      `check-docs: unknown argument ${unknown[0]}; usage: tsx scripts/check-docs.ts [--docs-only] [--root <dir>]`,
    );
    return 2;
  }
  const problems = checkDocs(root, { docsOnly });
  for (const problem of problems) console.error(`${problem.file}:${problem.line}: ${problem.message}`);
  const what = docsOnly
    ? 'links in the Markdown files'
    : 'links in the Markdown files and documents named in comments';
  if (problems.length > 0) {
    console.error(`check-docs: ${problems.length} problem${problems.length === 1 ? '' : 's'} (${what})`);
    return 1;
  }
  console.log(`check-docs: ${what}: all resolve`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
