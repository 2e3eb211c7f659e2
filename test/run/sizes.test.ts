/**
 * The size limits (scripts/check-sizes.ts, run by .ci/run): the code as it is keeps them, and the
 * check finds what breaks them.
 */
import { describe, expect, it } from 'vitest';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, repositoryProblems, sizeProblems } from '../../scripts/check-sizes.js';
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

  it("lets the sandbox's demo data have long functions, never long files", () => {
    expect(sizeProblems('src/sandbox/demo/household.ts', fn('history', 300))).toEqual([]);
    expect(sizeProblems('src/sandbox/demo/household.ts', fn('history', 400)).map((p) => p.what)).toEqual(['file']);
    expect(sizeProblems('src/sandbox/app.ts', fn('start', 150)).map((p) => p.what)).toEqual(['function start']);
  });
});
