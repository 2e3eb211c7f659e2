/**
 * Quota from a cold start (issue 9, item 4). The service may have seen this token elsewhere: until
 * an answer's X-Rate-Limit has reconciled the ledger in the current window, at most one request is
 * in flight for the token, in one process and across processes sharing a state directory, and the
 * other first calls wait for it. With the sandbox limiting the token to 5 an hour and 4 requests
 * already made directly, three parallel first calls see no 429: one succeeds, the others get the
 * quota refusal naming the next free slot. Without any X-Rate-Limit (as the real service since
 * 2025), the first answer ends the single-flight.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuotaExhaustedError } from '../../src/api/client/errors.js';
import { QuotaLedger, tokenKey } from '../../src/quota/ledger.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import { cutProxy, type CutProxy } from '../helpers/cut-proxy.js';
import { runTogether, startChild } from '../helpers/go-child.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const NEXT_SLOT = /^the hourly request limit is spent; next request possible at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in (59|60) minutes\)$/;

let sb: TestSandbox;
let dir: string;
let stacks: Stack[] = [];
let slow: CutProxy;

beforeEach(async () => {
  sb = await testSandbox({ seed: 'cold-start', rateLimit: 5 });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-cold-'));
  // The token has been used elsewhere: 4 of its 5 requests this hour are gone.
  for (let i = 0; i < 4; i++) expect((await sb.get('/user')).status).toBe(200);
});

afterEach(async () => {
  for (const s of stacks) await s.close();
  stacks = [];
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function stack(baseUrl = sb.baseUrl, outcomes: (number | string)[] = []): Stack {
  const s = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl,
    stateDir: dir,
    persist: false,
    onRequest: (r) => outcomes.push(r.outcome),
    log: () => {},
  });
  stacks.push(s);
  return s;
}

describe('a token already at 4 of 5 on the service', () => {
  // A service that takes 300 ms to answer: parallel first calls really overlap.
  beforeEach(async () => {
    slow = await cutProxy(sb.baseUrl, { answerDelayMs: 300 });
  });
  afterEach(async () => slow.close());

  it('three parallel first calls from one process: no 429, one succeeds, two are refused with the next slot', async () => {
    const outcomes: (number | string)[] = [];
    const s = stack(slow.baseUrl, outcomes);
    const budget = sb.state.budgets[0]!.id;
    const results = await Promise.allSettled([
      s.service.call('getUser'),
      s.service.call('getPlans'),
      s.service.call('getAccounts', { params: { budget_id: budget } }),
    ]);
    expect(outcomes).not.toContain(429);
    expect(outcomes).toEqual([200]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(refused).toHaveLength(2);
    for (const e of refused) {
      expect(e).toBeInstanceOf(QuotaExhaustedError);
      expect((e as Error).message).toMatch(NEXT_SLOT);
    }
    expect((await sb.get('/user')).status).toBe(429); // the service's own count: exactly 5 used
  });

  it('three parallel first calls from three processes sharing the state directory: no 429, one succeeds, two are refused with the next slot', async () => {
    const results = await runTogether(Array.from({ length: 3 }, () => firstCall()));
    expect(results.flatMap((r) => r.outcomes)).not.toContain(429);
    expect(results.flatMap((r) => r.outcomes)).toEqual([200]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.error).toBeUndefined();
      expect(r.refused).toMatch(NEXT_SLOT);
      expect(Date.parse(r.nextSlotAt!)).toBeGreaterThan(Date.now() + 58 * 60_000);
    }
    expect((await sb.get('/user')).status).toBe(429);
  }, 60_000);
});

interface FirstResult {
  ok: boolean;
  refused?: string;
  nextSlotAt?: string;
  error?: string;
  outcomes: (number | string)[];
}

function firstCall() {
  return startChild<FirstResult>(join(import.meta.dirname, 'fixtures', 'first-call.ts'), {
    FIRST_TOKEN: sb.accessToken,
    FIRST_BASE_URL: slow.baseUrl,
    FIRST_STATE_DIR: dir,
  });
}

describe('a service that sends no X-Rate-Limit (the real one since 2025)', () => {
  let proxy: CutProxy | undefined;
  let roomy: TestSandbox | undefined;
  afterEach(async () => {
    await proxy?.close();
    await roomy?.close();
  });

  it('the first answer ends the single-flight: the others go out after it, and later calls are not held back', async () => {
    roomy = await testSandbox({ seed: 'cold-start-roomy', rateLimit: 1000 });
    const traffic: { kind: string; at: number }[] = [];
    proxy = await cutProxy(roomy.baseUrl, { dropHeaders: ['x-rate-limit'], onTraffic: (e) => traffic.push(e) });
    const token = roomy.accessToken;
    const s = createStack({ credentials: { token: async () => token }, baseUrl: proxy.baseUrl, stateDir: dir, persist: false, log: () => {} });
    stacks.push(s);
    await Promise.all([s.client.call('getUser'), s.client.call('getPlans'), s.client.call('getUser')]);
    // One request out while cold; the other two only after its answer.
    const firstAnswer = traffic.find((t) => t.kind === 'answered')!.at;
    const arrivals = traffic.filter((t) => t.kind === 'arrived').map((t) => t.at);
    expect(arrivals).toHaveLength(3);
    expect(arrivals.filter((at) => at < firstAnswer)).toHaveLength(1);
    // The headerless answer ended the cold start for the window: no probe is taken any more.
    const ledger = JSON.parse(readFileSync(join(dir, 'quota', `${tokenKey(token)}.json`), 'utf8'));
    expect(ledger.probe).toBeNull();
    expect(ledger.reconciledAt).toBeTypeOf('number');
    const next = await QuotaLedger.forToken(token, { stateDir: dir }).acquireForRequest('read');
    expect(next.ok && next.probe).toBeFalsy();
  });
});

describe('the probe in the ledger', () => {
  it('waits for a probe held by another process, and goes once it lapses (its holder died)', async () => {
    const token = 'cold-start-dead-holder-0123';
    mkdirSync(join(dir, 'quota'), { mode: 0o700 });
    const until = Date.now() + 600;
    writeFileSync(
      join(dir, 'quota', `${tokenKey(token)}.json`),
      JSON.stringify({ v: 1, entries: [], limit: null, blockedUntil: null, reconciledAt: null, probe: { id: 'dead', until } }),
    );
    const ledger = QuotaLedger.forToken(token, { stateDir: dir, probeTtlMs: 1_000 });
    const slot = await ledger.acquireForRequest('read');
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(slot.ok && slot.probe).toBeTruthy();
    await ledger.settle(slot, { answered: true, header: { used: 1, limit: 200 } });
    const after = await ledger.acquireForRequest('read');
    expect(after.ok && after.probe).toBeFalsy(); // reconciled: no more single-flight this window
  });

  it('callers wait for the probe (not fail) and take their slots from the reconciled ledger', async () => {
    const ledger = QuotaLedger.forToken('cold-start-unit-0123', { stateDir: dir });
    const first = await ledger.acquireForRequest('write');
    expect(first.ok && first.probe).toBeTruthy();
    let settled = false;
    const others = Promise.all([ledger.acquireForRequest('write'), ledger.acquireForRequest('write')]).then((r) => {
      expect(settled).toBe(true);
      return r;
    });
    await new Promise((r) => setTimeout(r, 200));
    settled = true;
    await ledger.settle(first, { answered: true, header: { used: 4, limit: 5 } });
    const [a, b] = await others;
    expect([a.ok, b.ok].sort()).toEqual([false, true]);
  });

  it('a lost connection ends the probe without reconciling: the next caller probes again', async () => {
    const ledger = QuotaLedger.forToken('cold-start-lost-0123', { stateDir: dir });
    const first = await ledger.acquireForRequest('read');
    const next = ledger.acquireForRequest('read');
    await ledger.settle(first, { answered: false, header: null });
    const second = await next;
    expect(second.ok && second.probe).toBeTruthy();
  });
});
