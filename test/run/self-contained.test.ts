/**
 * A clone anywhere runs every test: nothing reads outside the repository (the OpenAPI contract
 * tests read YNAB's specs from test/fixtures/, not from a directory that happens to sit beside
 * the checkout), and the contract tests run, not skip, in a copy with nothing beside it.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { cleanEnv, runVitest } from './child-vitest.js';

/** The repository's own code and configuration (generated and installed trees left out). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|tsx|js|mjs|cjs|json)$/.test(name) ? [path] : [];
  });
}

describe('a clone anywhere', () => {
  it('no code, test or script of the repository reads the directory beside it', () => {
    // A relative path to a "shared" folder that lands outside the checkout (src/shared/ is the
    // project's own module; ../shared beside the checkout is not). The one exception is the real
    // bank files (issue 33): they may not be copied in, so their test and bench part read
    // ../shared/bank-files where CI places it, and skip with one line where it is absent.
    const escapes = (path: string, base: string) =>
      [...readFileSync(path, 'utf8').matchAll(/(?:\.\.\/)+shared\b(?!\/bank-files)/g)].some((m) => relative(REPO_ROOT, resolve(base, m[0])).startsWith('..'));
    const found = [
      ...sources(REPO_ROOT).filter((path) => escapes(path, dirname(path))),
      ...(escapes(join(REPO_ROOT, '.ci/run'), REPO_ROOT) ? [join(REPO_ROOT, '.ci/run')] : []),
    ].map((path) => relative(REPO_ROOT, path));
    expect(found).toEqual([]);
  });

  it('runs the OpenAPI contract tests, none skipped, with nothing beside the checkout', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-clone-'));
    try {
      // A copy of the tests (their own location decides what "beside" means); the rest linked.
      const repo = join(root, 'repo');
      mkdirSync(repo);
      cpSync(join(REPO_ROOT, 'test'), join(repo, 'test'), { recursive: true });
      for (const f of ['package.json', 'tsconfig.json', 'vitest.config.ts']) cpSync(join(REPO_ROOT, f), join(repo, f));
      for (const d of ['src', 'node_modules']) symlinkSync(join(REPO_ROOT, d), join(repo, d));

      const run = await runVitest(repo, ['test/contract/openapi-contract.test.ts'], cleanEnv());
      expect(run.report.numTotalTests).toBeGreaterThan(100);
      expect([run.report.numPassedTests, run.report.numPendingTests, run.report.numFailedTests]).toEqual([run.report.numTotalTests, 0, 0]);
      expect(run.code, run.stderr).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
