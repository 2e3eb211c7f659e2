/**
 * `login` checks a new token with GET /user, and a failure that is likely to pass is tried again
 * (issue 24, item 7). Through the real CLI against sandboxes whose --faults fail requests over
 * real HTTP:
 *  - one 503, or one dropped connection, then an answer: signed in, after one line saying what
 *    failed and that it tries again;
 *  - 503 every time, or the connection dropped every time: three tries, then an error saying what
 *    failed; nothing stored;
 *  - a token YNAB refuses (401): one try, no retry.
 * Each try takes a slot in the token's request ledger, which counts them here; no run prints the token.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { QuotaLedger } from '../../src/quota/ledger.js';
import { FaultInjector, parseFaults, type FaultDecision } from '../../src/sandbox/faults.js';
import { killAllCli } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { runCli } from './cli-run.js';
import { tempDirs } from './helpers.js';

const dirs = tempDirs();
const sandboxes: TestSandbox[] = [];
afterEach(async () => {
  await killAllCli();
  dirs.cleanup();
});
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});

/**
 * A sandbox whose first requests meet the faults `wanted` accepts. The sandbox draws each
 * request's fault from a generator seeded with its seed: the same generator, asked here, tells
 * which seed gives the sequence wanted.
 */
async function faulty(faults: string, wanted: (first: FaultDecision, second: FaultDecision) => boolean = () => true): Promise<TestSandbox> {
  for (let i = 0; i < 1000; i++) {
    const seed = `login-retry-${i}`;
    const draw = new FaultInjector(parseFaults(faults), seed);
    if (!wanted(draw.decide(), draw.decide())) continue;
    const sb = await testSandbox({ seed, faults, rateLimit: 100_000 });
    sandboxes.push(sb);
    return sb;
  }
  throw new Error(`no seed gives the faults wanted with ${faults}`);
}

async function login(sb: TestSandbox, token = sb.accessToken) {
  const d = dirs.configAndState();
  const res = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${token}\n` });
  expect(res.stdout + res.stderr).not.toContain(token);
  const tries = (await QuotaLedger.forToken(token, { stateDir: d.stateDir }).status()).used;
  const stored = existsSync(join(d.configDir, 'secrets.json'));
  return { ...res, tries, stored, retries: res.stderr.split('\n').filter((l) => /trying again/.test(l)) };
}

describe('login tries a passing failure again', () => {
  it('one 503, then an answer: signed in, the retry said in one line', async () => {
    const sb = await faulty('503=0.5', (first, second) => first === '503' && second === 'none');
    const res = await login(sb);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`Signed in to YNAB as user ${sb.state.userId} with a personal access token.`);
    expect(res.retries).toEqual(['Checking the token: YNAB answered GET /user with 503 service_unavailable: injected fault; trying again in 0.5 s.']);
    expect(res.tries).toBe(2);
    expect(res.stored).toBe(true);
  });

  it('one dropped connection, then an answer: signed in', async () => {
    const sb = await faulty('reset=0.5', (first, second) => first.startsWith('reset') && second === 'none');
    const res = await login(sb);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`Signed in to YNAB as user ${sb.state.userId}`);
    expect(res.retries).toHaveLength(1);
    expect(res.retries[0]).toMatch(/^Checking the token: (the connection to )?http:\/\/127\.0\.0\.1:\d+\/v1 .*was lost.*; trying again in 0\.5 s\.$/);
    expect(res.tries).toBe(2);
  });

  it('503 every time: three tries, then an error that names the status; nothing stored', async () => {
    const sb = await faulty('503=1');
    const res = await login(sb);
    expect(res.code).toBe(1);
    expect(res.retries).toHaveLength(2);
    expect(res.retries[1]).toMatch(/trying again in 1 s\.$/);
    expect(res.stderr).toContain('the token was not stored: YNAB answered GET /user with 503 service_unavailable: injected fault (tried 3 times)');
    expect(res.tries).toBe(3);
    expect(res.stored).toBe(false);
  });

  it('the connection dropped every time: three tries, then an error that says so', async () => {
    const sb = await faulty('reset=1');
    const res = await login(sb);
    expect(res.code).toBe(1);
    expect(res.retries).toHaveLength(2);
    expect(res.stderr).toMatch(
      /the token was not stored: could not check the token: (the connection to )?http:\/\/127\.0\.0\.1:\d+\/v1 .*was lost.* \(tried 3 times\)/,
    );
    expect(res.tries).toBe(3);
    expect(res.stored).toBe(false);
  });

  it('a token YNAB refuses (401) is not tried again', async () => {
    const sb = await faulty('503=0.5');
    const res = await login(sb, 'not-a-token-of-this-sandbox-0123456789');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the token was not stored: YNAB did not accept the token (401 not_authorized)');
    expect(res.retries).toEqual([]);
    expect(res.tries).toBe(1);
  });
});
