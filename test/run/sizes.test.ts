/**
 * The size limits (scripts/check-sizes.ts, run by .ci/run): the code as it is keeps them, and the
 * check finds what breaks them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_README_LINES } from '../../scripts/check-docs.js';
import { checkedFiles, lineCount, MAX_FILE_LINES, MAX_FUNCTION_LINES, readmeProblems, repositoryProblems, sizeProblems } from '../../scripts/check-sizes.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** A function of bodyLines + 3 lines. */
const fn = (name: string, bodyLines: number) => `export function ${name}(): number {\n${'  let x = 1;\n'.repeat(bodyLines)}  return 1;\n}\n`;

describe('size limits', () => {
  it('hold for every source file, view, script and benchmark', () => {
    expect(repositoryProblems(REPO_ROOT).map((p) => `${p.file}:${p.line} ${p.what} ${p.lines}`)).toEqual([]);
  });

  it(`finds a file over ${MAX_FILE_LINES} lines and a function over ${MAX_FUNCTION_LINES}, not one at the limit`, () => {
    expect(sizeProblems('src/a.ts', fn('atLimit', MAX_FUNCTION_LINES - 3))).toEqual([]);
    expect(sizeProblems('src/a.ts', fn('over', MAX_FUNCTION_LINES - 2))).toEqual([
      { file: 'src/a.ts', line: 1, what: 'function over', lines: 101, limit: 100 },
    ]);
    const arrow = `export const handler = async () => {\n${'  await 1;\n'.repeat(120)}};\n`;
    expect(sizeProblems('src/b.ts', arrow).map((p) => p.what)).toEqual(['function handler']);
    const long = 'export const x = 1;\n'.repeat(MAX_FILE_LINES + 1);
    expect(sizeProblems('src/c.ts', long)).toEqual([{ file: 'src/c.ts', line: 1, what: 'file', lines: 351, limit: 350 }]);
  });

  it('counts lines as wc -l does, for the README and every checked file', () => {
    const files = ['README.md', ...checkedFiles(REPO_ROOT)];
    // wc prints "N path" per file and a total line last.
    const out = execFileSync('wc', ['-l', ...files], { cwd: REPO_ROOT, encoding: 'utf8' })
      .trim()
      .split('\n')
      .slice(0, -1);
    const byWc = Object.fromEntries(out.map((l) => l.trim().split(/\s+/)).map(([n, f]) => [f!, Number(n)]));
    expect(Object.fromEntries(files.map((f) => [f, lineCount(readFileSync(`${REPO_ROOT}/${f}`, 'utf8'))]))).toEqual(byWc);
    expect(byWc['README.md']).toBeLessThanOrEqual(MAX_README_LINES);
    expect(
      Math.max(
        ...Object.entries(byWc)
          .filter(([f]) => f !== 'README.md')
          .map(([, n]) => n),
      ),
    ).toBeLessThanOrEqual(MAX_FILE_LINES);
    // A last line without its line feed is not one for wc.
    expect([lineCount('a\nb'), lineCount('a\nb\n'), lineCount(''), lineCount('\n\n')]).toEqual([1, 2, 0, 2]);
  });

  it(`holds the README to ${MAX_README_LINES} lines`, () => {
    expect(readmeProblems('x\n'.repeat(MAX_README_LINES))).toEqual([]);
    expect(readmeProblems('x\n'.repeat(MAX_README_LINES + 1))).toEqual([{ file: 'README.md', line: 1, what: 'file', lines: 401, limit: 400 }]);
  });

  it("lets the sandbox's demo data have long functions, never long files", () => {
    expect(sizeProblems('src/sandbox/demo/household.ts', fn('history', 300))).toEqual([]);
    expect(sizeProblems('src/sandbox/demo/household.ts', fn('history', 400)).map((p) => p.what)).toEqual(['file']);
    expect(sizeProblems('src/sandbox/app.ts', fn('start', 150)).map((p) => p.what)).toEqual(['function start']);
  });
});
