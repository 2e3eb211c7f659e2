/**
 * `npm install && npm test` on a machine with only Node.js: the tests that need redis-server,
 * Chromium, a Secret Service keychain or openssl skip, and the run says once per missing one how
 * to get it; with YNAB_MCP_REQUIRE_SERVICES (which .ci/run sets) they fail instead, saying what is
 * missing. Such a machine is played by a child vitest whose PATH holds node alone, whose
 * YNAB_MCP_CHROMIUM names a path with nothing there, and whose D-Bus socket does not exist.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { REQUIRE_ENV, requiredServices, SERVICES, type ServiceName } from '../helpers/services.js';
import { cleanEnv, runVitest } from './child-vitest.js';

const bin = mkdtempSync(join(tmpdir(), 'ynab-mcp-only-node-'));
symlinkSync(process.execPath, join(bin, 'node'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

/** Nothing but Node.js: no redis-server or openssl on PATH, no Chromium, no D-Bus session. */
const bare = (over: Record<string, string> = {}) =>
  cleanEnv({ PATH: bin, YNAB_MCP_CHROMIUM: join(bin, 'chromium'), DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(bin, 'no-bus')}`, ...over });

/** One file per service (authorization.test.ts needs two: redis-server and openssl). */
const FILES = ['test/storage/redis-store.test.ts', 'test/views/render.test.ts', 'test/auth/keychain.test.ts', 'test/hosted/authorization.test.ts'];

const PACKAGES: Record<ServiceName, string> = {
  redis: 'apt-get install redis-server',
  chromium: 'apt-get install chromium',
  keychain: 'apt-get install gnome-keyring dbus-user-session',
  openssl: 'apt-get install openssl',
};

const notices = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('[services] '));

describe('a machine with only Node.js', () => {
  it('skips the tests that need a missing service, passes, and says once per service how to get it', async () => {
    const run = await runVitest(REPO_ROOT, FILES, bare());
    expect(run.report.testResults.map((f) => [relative(REPO_ROOT, f.name), f.status, f.message]).sort()).toEqual(
      [...FILES].sort().map((f) => [f, 'passed', '']),
    );
    expect(run.report.numTotalTests).toBeGreaterThan(30);
    expect([run.report.numPendingTests, run.report.numFailedTests, run.report.numPassedTests]).toEqual([run.report.numTotalTests, 0, 0]);
    expect(run.code, run.stderr).toBe(0);

    const lines = notices(run.stderr);
    expect(lines).toHaveLength(SERVICES.length);
    for (const s of SERVICES) {
      const mine = lines.filter((l) => l.includes(`tagged "${s.name}"`));
      expect(mine, s.name).toHaveLength(1);
      expect(mine[0]).toMatch(/^\[services\] skipping the tests tagged/);
      expect(mine[0]).toContain(PACKAGES[s.name]);
      expect(mine[0]).toContain(`${REQUIRE_ENV}=${s.name} makes them fail instead`);
    }
    expect(lines.find((l) => l.includes('"chromium"'))).toContain(`no Chromium at ${join(bin, 'chromium')}`);
    expect(lines.find((l) => l.includes('"redis"'))).toContain('redis-server is not on PATH');
  });

  it(`with ${REQUIRE_ENV} (and the older YNAB_MCP_KEYCHAIN_TEST=1) those tests fail instead, saying what is missing`, async () => {
    const run = await runVitest(REPO_ROOT, FILES.slice(0, 3), bare({ [REQUIRE_ENV]: 'redis,chromium,openssl', YNAB_MCP_KEYCHAIN_TEST: '1' }));
    expect(run.code).toBe(1);
    const file = (name: string) => run.report.testResults.find((f) => f.name.endsWith(name))!;
    expect(file('redis-store.test.ts')).toMatchObject({ status: 'failed', message: expect.stringContaining('redis-server is not installed') });
    expect(file('redis-store.test.ts').message).toContain(PACKAGES.redis);
    expect(file('render.test.ts')).toMatchObject({ status: 'failed', message: expect.stringContaining(`no Chromium at ${join(bin, 'chromium')}`) });
    expect(file('render.test.ts').message).toContain(PACKAGES.chromium);
    const keychain = file('keychain.test.ts');
    expect(keychain.status).toBe('failed');
    expect(keychain.assertionResults.every((a) => a.status === 'failed')).toBe(true);
    expect(keychain.assertionResults[0]!.failureMessages.join('\n')).toMatch(/Secret Service failed/);

    const lines = notices(run.stderr);
    expect(lines).toHaveLength(SERVICES.length);
    for (const s of SERVICES)
      expect(
        lines.filter((l) => l.startsWith(`[services] MISSING, and required by ${REQUIRE_ENV}`) && l.includes(`"${s.name}"`)),
        s.name,
      ).toHaveLength(1);
  });
});

describe(REQUIRE_ENV, () => {
  it('names services, or all; YNAB_MCP_KEYCHAIN_TEST=1 adds the keychain; anything else is refused', () => {
    expect([...requiredServices({})]).toEqual([]);
    expect([...requiredServices({ [REQUIRE_ENV]: 'redis, chromium' })].sort()).toEqual(['chromium', 'redis']);
    expect([...requiredServices({ [REQUIRE_ENV]: 'all' })].sort()).toEqual(SERVICES.map((s) => s.name).sort());
    expect([...requiredServices({ YNAB_MCP_KEYCHAIN_TEST: '1' })]).toEqual(['keychain']);
    expect([...requiredServices({ YNAB_MCP_KEYCHAIN_TEST: '0' })]).toEqual([]);
    expect(() => requiredServices({ [REQUIRE_ENV]: 'redis,postgres' })).toThrow(
      `${REQUIRE_ENV}: unknown service "postgres"; expected a comma-separated list of redis, chromium, keychain, openssl, or all`,
    );
  });

  it('.ci/run requires every service, so CI can never skip their tests', () => {
    const script = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8');
    const set = [...script.matchAll(new RegExp(`^\\s*export ${REQUIRE_ENV}=(\\S+)`, 'gm'))].map((m) => m[1]!);
    expect(set).toHaveLength(1);
    expect([...requiredServices({ [REQUIRE_ENV]: set[0]!.replace(/^["']|["']$/g, '') })].sort()).toEqual(SERVICES.map((s) => s.name).sort());
  });
});

describe('the README', () => {
  it('says in its Quick start what a full test run needs, and how to make those tests mandatory', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const quick = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    const line = quick.split('\n').find((l) => l.startsWith('sudo apt-get install '));
    expect(line).toBeDefined();
    // Every Debian package the services name, on the one install line.
    const packages = SERVICES.flatMap((s) => s.install.match(/apt-get install ([\w. -]+?)(?:,|$| \()/)![1]!.split(' '));
    expect(packages.length).toBeGreaterThanOrEqual(SERVICES.length);
    for (const p of packages) expect(line!.split(' '), p).toContain(p);
    for (const text of [
      `${REQUIRE_ENV}=all`,
      'redis,chromium,keychain,openssl',
      'YNAB_MCP_CHROMIUM',
      'dbus-run-session',
      'gnome-keyring-daemon --unlock',
      'skip',
    ]) {
      expect(quick, text).toContain(text);
    }
  });
});

/** What in a test file shows that it uses each service, and how it says so. */
const USES: Record<ServiceName, RegExp> = {
  redis: /\bstart(?:Redis|Deployment)\(/,
  chromium: /\bViewHost\.launch\(/,
  openssl: /\b(?:execFileSync|execFile|spawnSync|spawn)\('openssl'/,
  // The real keychain, unless the file points D-Bus away from it (then it tests the fallback).
  keychain: /\b(?:probeKeychain|loadKeyring)\(/,
};

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('test files declare the services they use', () => {
  it('every file that starts redis-server or Chromium, runs openssl or uses the real keychain is tagged for it', () => {
    const untagged: string[] = [];
    for (const path of testFiles(join(REPO_ROOT, 'test'))) {
      const text = readFileSync(path, 'utf8');
      for (const [name, used] of Object.entries(USES) as [ServiceName, RegExp][]) {
        if (!used.test(text)) continue;
        if (name === 'keychain' && /DBUS_SESSION_BUS_ADDRESS\s*=/.test(text)) continue;
        const tagged = new RegExp(`^// @module-tag ${name}\\b`, 'm').test(text) || text.includes(`tags: ['${name}']`);
        if (!tagged) untagged.push(`${relative(REPO_ROOT, path)}: uses ${name}, not tagged`);
      }
    }
    expect(untagged).toEqual([]);
  });
});
