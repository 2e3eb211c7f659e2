/**
 * `npm install && npm test` on a machine with only Node.js: the tests that need redis-server,
 * Chromium, a Secret Service keychain or openssl skip, and the run says once per missing one how
 * to get it; with YNAB_MCP_REQUIRE_SERVICES (which .ci/run sets) they fail instead, saying what is
 * missing. Such a machine is played by a child vitest whose PATH holds node alone, whose
 * YNAB_MCP_CHROMIUM names a path with nothing there, and whose D-Bus socket does not exist; and,
 * where this run may, by .ci/without-services, which hides the programs in a mount namespace.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { REQUIRE_ENV, requiredServices, SERVICES, type ServiceName } from '../helpers/services.js';
import { cleanEnv, runVitest, type ChildRun } from './child-vitest.js';

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

/** Where this machine has a program (the test needs it here to hide the others). */
const which = (program: string) => execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();

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

  // It needs both programs here, to keep one of them on the child's PATH: without either, it skips.
  it(
    'a file needing two services, one of them here, starts neither: openssl without redis-server, and redis-server without openssl',
    { tags: ['redis', 'openssl'] },
    async () => {
      // Vitest merges a test's tag options in order: an available service's tag must not undo a
      // missing one's skip, or the file's beforeAll starts the deployment and fails.
      const hosted = ['test/hosted/authorization.test.ts', 'test/hosted/sign-in-rules.test.ts'];
      for (const keep of [['openssl'], ['redis-server', 'redis-cli']]) {
        const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-some-programs-'));
        symlinkSync(process.execPath, join(dir, 'node'));
        for (const p of keep) symlinkSync(which(p), join(dir, p));
        try {
          const run = await runVitest(REPO_ROOT, hosted, bare({ PATH: dir }));
          expect(
            run.report.testResults.map((f) => [relative(REPO_ROOT, f.name), f.status, f.message]),
            keep.join(),
          ).toEqual(hosted.map((f) => [f, 'passed', '']));
          expect([run.report.numFailedTests, run.report.numPendingTests, run.code]).toEqual([0, run.report.numTotalTests, 0]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  );

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

/** .ci/without-services needs `unshare --mount`: root, or sudo without a password. */
const canHide =
  process.getuid?.() === 0 ? spawnSync('unshare', ['--mount', 'true']).status === 0 : spawnSync('sudo', ['-n', 'unshare', '--mount', 'true']).status === 0;

describe('.ci/without-services (run by .ci/run)', () => {
  it.skipIf(!canHide)('hides the programs in a namespace of its own: their tests skip, the run passes, and nothing is hidden outside it', () => {
    const out = mkdtempSync(join(tmpdir(), 'ynab-mcp-without-services-'));
    try {
      // One file per service, every test of each declaring one.
      const files = ['test/hosted/sign-in-rules.test.ts', 'test/views/markup.test.ts', 'test/auth/keychain.test.ts'];
      const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
      // Run from a vitest worker, whose switches must not leak in: the script starts clean.
      const run = spawnSync(join(REPO_ROOT, '.ci/without-services'), [join(out, 'r.json'), ...files], {
        cwd: REPO_ROOT,
        env: cleanEnv({ YNAB_MCP_REQUIRE_SERVICES: 'all' }),
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(readFileSync('/proc/self/mountinfo', 'utf8'), 'mounts left behind outside the namespace').toBe(mounts);
      const report = JSON.parse(readFileSync(join(out, 'r.json'), 'utf8')) as ChildRun['report'];
      expect(report.testResults.map((f) => [relative(REPO_ROOT, f.name), f.status]).sort()).toEqual([...files].sort().map((f) => [f, 'passed']));
      expect([report.numFailedTests, report.numPassedTests]).toEqual([0, 0]);
      expect(report.numPendingTests).toBe(report.numTotalTests);
      expect(report.numTotalTests).toBeGreaterThan(10);
      for (const name of SERVICES.map((s) => s.name))
        expect(
          notices(run.stderr).some((l) => l.includes(`skipping the tests tagged "${name}"`)),
          name,
        ).toBe(true);
      // Absent there, not merely unusable: found by nothing, on PATH or at Chromium's path.
      expect(notices(run.stderr).find((l) => l.includes('"redis"'))).toContain('redis-server is not on PATH');
      expect(notices(run.stderr).find((l) => l.includes('"chromium"'))).toContain('no Chromium at /usr/bin/chromium');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
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
