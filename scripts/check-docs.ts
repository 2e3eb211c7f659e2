/**
 * Keeps the documentation whole (`npm run check:docs`; test/run/docs.test.ts runs it too):
 *  - the README stays within 400 lines, and what it does not hold is in docs/;
 *  - every relative link of the README and of docs/ reaches a file that exists, and its anchor a
 *    heading of that file (GitHub's anchors);
 *  - every document under docs/ can be reached from the README by following links;
 *  - every repository path a document names in backticks (`src/…`, `test/…`, …) exists, so a map
 *    of the code cannot point at files that moved;
 *  - every package of package.json is explained in docs/dependencies.md;
 *  - the README and docs/ state no count of tools, operations, banks, views (and their `ui://`
 *    resources), toolsets or event types by hand: each is `<!-- count:NAME -->N`, which `npm run
 *    docs` writes from the code (outside the generated tables); the README states the MCPB bundle's
 *    size as the limit scripts/pack-mcpb.ts holds it to (a measured size would go stale).
 * The generated tables and counts are checked by scripts/docs-tables.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

export const MAX_README_LINES = 400;

/** The MCPB bundle's size limit, in MB (scripts/pack-mcpb.ts fails above it). */
export const MCPB_MAX_MB = 8;

const NUMBER = String.raw`(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)`;
/** What the documents count about the code: tools, operations, banks' layouts, views and their `ui://` resources, toolsets, event types. */
const WHAT = String.raw`(?:API |insight |task(?:-shaped)? |view )?(?:tools|writes|operations)|banks|views|(?:code )?resources|toolsets|event types`;
/** A count of one of them in prose, as `(marker?)(number) (what)` (a code span reads as "code"). */
const COUNTED = new RegExp(String.raw`(<!-- count:[a-z-]+ -->)?\b(${NUMBER}) (${WHAT})\b`, 'gi');

/** Counts a document (the README, or one of docs/) writes by hand, and in the README sizes other than the bundle's limit (`file:line what`). */
export function countProblems(file: string, doc: string): string[] {
  const problems: string[] = [];
  // The generated tables are written by docs-tables.ts, counts and all.
  const text = doc.replace(/<!-- generated:([a-z-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g, (block) => block.replace(/[^\n]/g, ' '));
  for (const { line, text: t } of prose(text)) {
    for (const m of withoutCode(t).matchAll(COUNTED))
      if (!m[1])
        problems.push(
          `${file}:${line} states "${m[2]} ${m[3]}" by hand: write <!-- count:NAME -->N (scripts/docs-tables.ts COUNTS), which npm run docs keeps true`,
        );
    // A line that opens with a comment is an HTML block in Markdown: the count and the rest of the line would show as raw text.
    if (/^\s*<!-- count:/.test(t)) problems.push(`${file}:${line} starts with a count's marker, which Markdown reads as HTML: put a word before it`);
    if (file !== 'README.md') continue;
    for (const m of withoutCode(t).matchAll(/(\d+(?:\.\d+)?) MB\b/g))
      if (Number(m[1]) !== MCPB_MAX_MB) problems.push(`README.md:${line} says ${m[0]}: the bundle's size goes stale; state its limit, ${MCPB_MAX_MB} MB`);
  }
  return problems;
}

const FENCE = /^\s*(```|~~~)/;

/** The lines of a Markdown text outside fenced code blocks, with their numbers. */
function prose(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((t, i) => {
    if (FENCE.test(t)) fenced = !fenced;
    else if (!fenced) out.push({ line: i + 1, text: t });
  });
  return out;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const plain = heading.replace(/`/g, '').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
  return plain
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a Markdown text (a repeated heading gets -1, -2, … as on GitHub). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: t } of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(t);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

const withoutCode = (t: string) => t.replace(/`[^`]*`/g, 'code');

/** Relative links and images of a Markdown text (not inside code), with their lines. */
export function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { line, text: t } of prose(text))
    for (const m of withoutCode(t).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ target, line });
    }
  return out;
}

/** Repository paths a text names in backticks, such as `src/sync/replica.ts` (not patterns or placeholders). */
export function codePaths(text: string): { path: string; line: number }[] {
  const out: { path: string; line: number }[] = [];
  for (const { line, text: t } of prose(text))
    for (const m of t.matchAll(/`([^`\s]+)`/g)) {
      const path = m[1]!;
      if (/^(src|test|scripts|views|bench|docs|assets)\//.test(path) && !/[<>*…{}|]/.test(path)) out.push({ path, line });
    }
  return out;
}

/** Every Markdown file under `dir` of `root`, as a path from `root`. */
export function markdownUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownUnder(root, join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** What breaks the rules above, one line each (`file:line what`); none when the documents keep them. */
export function docProblems(root: string): string[] {
  const problems: string[] = [];
  const docs = ['README.md', ...markdownUnder(root, 'docs')];
  const text = new Map(docs.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
  const readme = text.get('README.md')!;
  // As `wc -l` counts (scripts/check-sizes.ts counts the same way).
  const lines = readme.split('\n').length - 1;
  if (lines > MAX_README_LINES) problems.push(`README.md has ${lines} lines, over ${MAX_README_LINES}: move the detail to docs/`);
  const linked = new Map<string, Set<string>>();
  for (const [file, t] of text) {
    const to = new Set<string>();
    linked.set(file, to);
    for (const { target, line } of links(t)) {
      const [path = '', anchor] = target.split('#');
      const dest = path ? normalize(join(dirname(file), decodeURI(path))) : file;
      if (!existsSync(join(root, dest))) {
        problems.push(`${file}:${line} links to ${target}: no file ${dest}`);
        continue;
      }
      to.add(dest);
      if (anchor === undefined) continue;
      if (!dest.endsWith('.md')) problems.push(`${file}:${line} links to ${target}: an anchor into a file that is not Markdown`);
      else if (!anchors(text.get(dest) ?? readFileSync(join(root, dest), 'utf8')).has(anchor))
        problems.push(`${file}:${line} links to ${target}: ${dest} has no heading #${anchor}`);
    }
    for (const { path, line } of codePaths(t)) if (!existsSync(join(root, path))) problems.push(`${file}:${line} names ${path}, which does not exist`);
    problems.push(...countProblems(file.replaceAll('\\', '/'), t));
  }
  // Every document is reachable from the README.
  const reached = new Set(['README.md']);
  for (const queue = ['README.md']; queue.length;) {
    for (const next of linked.get(queue.shift()!) ?? []) {
      if (!text.has(next) || reached.has(next)) continue;
      reached.add(next);
      queue.push(next);
    }
  }
  for (const f of docs) if (!reached.has(f)) problems.push(`${f} is not linked from the README, nor from a document it links to`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const explained = text.get(join('docs', 'dependencies.md')) ?? '';
  for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})])
    if (!explained.includes(`\`${name}\``)) problems.push(`docs/dependencies.md does not say why ${name} is a dependency`);
  return problems.map((p) => p.replaceAll('\\', '/'));
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const problems = docProblems(join(import.meta.dirname, '..'));
  for (const p of problems) process.stderr.write(`${p}\n`);
  process.exitCode = problems.length ? 1 : 0;
}
