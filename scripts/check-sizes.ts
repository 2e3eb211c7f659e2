/**
 * Size limits the code is held to (`npm run check:sizes`, run by .ci/run and test/run/sizes.test.ts):
 * no source file over 350 lines, and no function over 100 lines outside the sandbox's demo data
 * (src/sandbox/demo/ writes two years of a household's history and is data written as code).
 * Every function-like node counts (declarations, methods, arrows, function expressions), from its
 * first line to its last: a factory whose closures add up to more is too long as well.
 * Lines are counted as `wc -l` counts them (line feeds), so what the check says is what anyone measures;
 * the README is held to its own limit here too (MAX_README_LINES, scripts/check-docs.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { MAX_README_LINES } from './check-docs.js';

export const MAX_FILE_LINES = 350;
export const MAX_FUNCTION_LINES = 100;
/** Where functions may be longer: demo data written as code. */
const LONG_FUNCTIONS_ALLOWED = /^src\/sandbox\/demo\//;

export interface SizeProblem {
  file: string;
  line: number;
  what: string;
  lines: number;
  limit: number;
}

function isFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isArrowFunction(n) ||
    ts.isFunctionExpression(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessor(n) ||
    ts.isSetAccessor(n)
  );
}

function nameOf(n: ts.FunctionLikeDeclaration): string {
  if (n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name))) return n.name.text;
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && ts.isIdentifier(p.name)) return p.name.text;
  return '(anonymous)';
}

/** A text's lines as `wc -l` counts them: its line feeds (a last line without one is not counted). */
export function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** What is too long in one file, given as its path from the repository root and its text. */
export function sizeProblems(file: string, text: string): SizeProblem[] {
  const problems: SizeProblem[] = [];
  const lines = lineCount(text);
  if (lines > MAX_FILE_LINES) problems.push({ file, line: 1, what: 'file', lines, limit: MAX_FILE_LINES });
  if (LONG_FUNCTIONS_ALLOWED.test(file)) return problems;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (n: ts.Node): void => {
    if (isFunction(n) && n.body) {
      const first = source.getLineAndCharacterOfPosition(n.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (last - first + 1 > MAX_FUNCTION_LINES) {
        problems.push({ file, line: first + 1, what: `function ${nameOf(n)}`, lines: last - first + 1, limit: MAX_FUNCTION_LINES });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return problems;
}

/** The TypeScript sources the limits apply to: the product, its views, scripts and benchmarks (tests are not held to them). */
export function checkedFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'views', 'scripts', 'bench'], {
    cwd: root,
    encoding: 'utf8',
  });
  return out.split('\n').filter((f) => /\.(ts|mts)$/.test(f) && !f.endsWith('.d.ts'));
}

/** The README over its limit, as a size problem. */
export function readmeProblems(text: string): SizeProblem[] {
  const lines = lineCount(text);
  return lines > MAX_README_LINES ? [{ file: 'README.md', line: 1, what: 'file', lines, limit: MAX_README_LINES }] : [];
}

export function repositoryProblems(root: string): SizeProblem[] {
  return [
    ...readmeProblems(readFileSync(join(root, 'README.md'), 'utf8')),
    ...checkedFiles(root).flatMap((f) => sizeProblems(f, readFileSync(join(root, f), 'utf8'))),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = repositoryProblems(process.cwd());
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.what} has ${p.lines} lines (at most ${p.limit})`);
  if (problems.length) process.exit(1);
  console.log(
    `sizes: the README is at most ${MAX_README_LINES} lines, every source file at most ${MAX_FILE_LINES}, every function at most ${MAX_FUNCTION_LINES}`,
  );
}
