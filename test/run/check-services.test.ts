/**
 * The service declarations (scripts/check-services.ts, `npm run check:services`, run by .ci/run):
 * the test files as they are declare every service they start, and the check finds a file that
 * starts one without saying so, however many helpers lie between the file and the program.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeProblem, repositoryServiceProblems, serviceProblems } from '../../scripts/check-services.js';
import { REPO_ROOT } from '../helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-check-services-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Helpers two calls away from the programs: a class method, an arrow, a function, across imports. */
const HELPERS: Record<string, string> = {
  'test/helpers/cert.ts': `import { execFileSync } from 'node:child_process';
export function makeCert(dir: string): void { execFileSync('openssl', ['req', '-x509']); }`,
  'test/helpers/db.ts': `import * as cp from 'node:child_process';
export const bootRedis = async () => cp.spawn('redis-server', ['--port', '0']);`,
  'test/helpers/site.ts': `import { makeCert } from './cert.js';
import { bootRedis } from './db.js';
export class Site {
  static async open(): Promise<Site> { await new Site().prepare(); return new Site(); }
  private async prepare(): Promise<void> { makeCert('/tmp'); await bootRedis(); }
}`,
  'test/helpers/browser.ts': `import { chromium } from 'playwright-core';
export async function browse() { return chromium.launchPersistentContext('/tmp/p', {}); }`,
  'test/helpers/secrets.ts': `import { loadKeyring } from '../../src/auth/keychain.js';
export const keyring = () => loadKeyring();`,
};

/** Spelt apart so that vitest does not take this file for one that declares services. */
const TAG = '// @module' + '-tag';

const files = (tests: Record<string, string>) => Object.entries({ ...HELPERS, ...tests }).map(([path, text]) => ({ path: join(root, path), text }));

const problems = (tests: Record<string, string>) => serviceProblems(files(tests), root).map((p) => [p.file, p.line, p.service, p.via]);

describe('npm run check:services', () => {
  it('finds nothing undeclared in this repository', () => {
    expect(repositoryServiceProblems(REPO_ROOT).map(describeProblem)).toEqual([]);
  });

  it('finds a test file that starts services through helpers in a hook, without declaring them, with the chain of calls', () => {
    const test = `import { beforeAll, it } from 'vitest';
import { Site } from './helpers/site.js';
beforeAll(async () => {
  await Site.open();
});
it('works', () => {});`;
    expect(problems({ 'test/a.test.ts': test })).toEqual([
      ['test/a.test.ts', 4, 'openssl', 'Site.open → Site.prepare → makeCert → execFileSync openssl'],
      ['test/a.test.ts', 4, 'redis', 'Site.open → Site.prepare → bootRedis → spawn redis-server'],
    ]);
    // Declared for the file: nothing to say. Declared for one of the two: the other is still found.
    expect(problems({ 'test/a.test.ts': `${TAG} redis\n${TAG} openssl\n${test}` })).toEqual([]);
    expect(problems({ 'test/a.test.ts': `${TAG} redis\n${test}` }).map((p) => p[2])).toEqual(['openssl']);
  });

  it('accepts a test given the tag for a start inside it, never for a start in a hook, a local function or the top of the file', () => {
    const inTest = `import { it } from 'vitest';
import { browse } from './helpers/browser.js';
it('renders', { tags: ['chromium'] }, async () => { await browse(); });`;
    expect(problems({ 'test/b.test.ts': inTest })).toEqual([]);
    const local = `import { beforeAll, it } from 'vitest';
import { keyring } from './helpers/secrets.js';
async function setUp() { return keyring(); }
beforeAll(setUp);
const entry = await setUp();
it('reads', { tags: ['keychain'] }, () => {});`;
    // Reported once, where the file first starts it (the hook).
    expect(problems({ 'test/c.test.ts': local })).toEqual([['test/c.test.ts', 4, 'keychain', 'setUp → keyring → loadKeyring']]);
    // A file that points D-Bus away tests the keychain's absence.
    expect(problems({ 'test/c.test.ts': `process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nowhere';\n${local}` })).toEqual([]);
  });

  it('fails, naming the file, the line and the chain, when run on a repository with such a file', () => {
    for (const [path, text] of Object.entries({
      ...HELPERS,
      'test/hosted/d.test.ts': `import { beforeAll } from 'vitest';\nimport { bootRedis } from '../helpers/db.js';\nbeforeAll(bootRedis);`,
    })) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), join(REPO_ROOT, 'scripts/check-services.ts'), root], {
      encoding: 'utf8',
    });
    expect([run.status, run.stderr.trim()]).toEqual([
      1,
      `test/hosted/d.test.ts:3: starts redis (bootRedis → spawn redis-server) without a "${TAG} redis" line (see test/helpers/services.ts)`,
    ]);
  });
});
