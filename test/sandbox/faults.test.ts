/**
 * Injected faults (`--faults SPEC`), each forced on its own sandbox: 500 and 503 answers that
 * apply nothing, dropped connections (sometimes after the change was applied), slow answers
 * that end with 503 past the request timeout, and a 500 echoing the Authorization header (so
 * client tests can prove they never show it). Bad specs are refused clearly, by the library
 * and by the CLI (exit code 2).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FAULT_KINDS, FaultSpecError, parseFaults } from '../../src/sandbox/faults.js';
import type { SandboxOptions } from '../../src/sandbox/app.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { killAllCli, runCli } from './cli-process.js';

const open: TestSandbox[] = [];

async function faulty(faults: string, opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sb = await testSandbox({ faults, ...opts });
  open.push(sb);
  return sb;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
});
afterAll(() => killAllCli());

const today = () => new Date().toISOString().slice(0, 10);

/** The first budget and an open checking account, read in-process (every request may fault). */
function target(sb: TestSandbox) {
  const budget = sb.state.budgets[0]!;
  const checking = [...budget.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed && !a.deleted)!;
  return { budget, checking, path: `/budgets/${budget.id}/transactions` };
}

function createBody(accountId: string, memo: string) {
  return { transaction: { account_id: accountId, date: today(), amount: -1_000, memo } };
}

/** Transactions of this test's writes that the sandbox holds, read in-process. */
function applied(sb: TestSandbox, prefix: string): Set<string> {
  const memos = new Set<string>();
  for (const t of sb.state.budgets[0]!.rec.transactions.values()) if (!t.deleted && t.memo?.startsWith(prefix)) memos.add(t.memo);
  return memos;
}

describe('500 and 503', () => {
  it.each([
    ['500=1', 500, '500', 'internal_server_error'],
    ['503=1', 503, '503', 'service_unavailable'],
  ])('%s answers every request with %i and applies nothing', async (spec, status, id, name) => {
    const sb = await faulty(spec);
    const { budget, checking, path } = target(sb);
    const k0 = budget.knowledge;
    for (let i = 0; i < 5; i++) {
      const res = await sb.call('POST', path, createBody(checking.id, `fault-${spec}-${i}`));
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ error: { id, name, detail: expect.any(String) } });
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // The request was counted: the answer is not a 429.
      expect(res.headers.get('x-rate-limit')).toBe(`${i + 1}/200`);
    }
    const read = await sb.get('/user');
    expect(read.status).toBe(status);
    expect(budget.knowledge).toBe(k0);
    expect(applied(sb, `fault-${spec}`).size).toBe(0);
  });

  it('does not fault requests refused for authentication', async () => {
    const sb = await faulty('500=1');
    const res = await sb.get('/user', 'bad-token');
    expect(res.status).toBe(401);
    expect(res.body.error.id).toBe('401');
  });
});

describe('reset', () => {
  it('drops the connection; some writes were applied before the drop and some were not', async () => {
    const sb = await faulty('reset=1');
    const { budget, checking, path } = target(sb);
    const k0 = budget.knowledge;
    const n = 30;
    for (let i = 0; i < n; i++) {
      const attempt = sb.call('POST', path, createBody(checking.id, `reset-${i}`));
      await expect(attempt).rejects.toThrow(/fetch failed|terminated/);
    }
    const memos = applied(sb, 'reset-');
    // Each write either happened completely or not at all, and both halves occur.
    expect(memos.size).toBeGreaterThan(0);
    expect(memos.size).toBeLessThan(n);
    expect(budget.knowledge - k0).toBe(memos.size);
    // Reads are dropped too.
    await expect(sb.get('/user')).rejects.toThrow(/fetch failed|terminated/);
  });

  it('after applying, the status line arrives and the body is cut; before, nothing arrives', async () => {
    const sb = await faulty('reset=1');
    const { checking, path } = target(sb);
    let cut = 0;
    let none = 0;
    for (let i = 0; i < 30; i++) {
      const memo = `line-${i}`;
      const res = await fetch(`${sb.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(createBody(checking.id, memo)),
      }).catch(() => undefined);
      if (!res) {
        none++;
        expect(applied(sb, memo).has(memo), memo).toBe(false);
        continue;
      }
      cut++;
      expect(res.status).toBe(201);
      await expect(res.text()).rejects.toThrow(/terminated/);
      expect(applied(sb, memo).has(memo), memo).toBe(true);
    }
    expect(cut).toBeGreaterThan(0);
    expect(none).toBeGreaterThan(0);
  });
});

describe('silent', () => {
  it('applies every write and answers none of them: not even a status line', async () => {
    const sb = await faulty('silent=1');
    const { budget, checking, path } = target(sb);
    const k0 = budget.knowledge;
    for (let i = 0; i < 10; i++) {
      await expect(
        fetch(`${sb.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(createBody(checking.id, `silent-${i}`)),
        }),
      ).rejects.toThrow(/fetch failed/);
    }
    expect(applied(sb, 'silent-').size).toBe(10);
    expect(budget.knowledge - k0).toBe(10);
  });
});

describe('reset with retries', () => {
  it('at a lower probability lets the rest through; a client retrying with import_id ends with exactly one of each', async () => {
    const sb = await faulty('reset=0.5');
    const { checking, path } = target(sb);
    const answers: number[] = [];
    let dropped = 0;
    for (let i = 0; i < 30; i++) {
      const body = { transaction: { ...createBody(checking.id, `half-${i}`).transaction, import_id: `YNAB:-1000:${today()}:${i + 1}` } };
      // Retry until an answer arrives, as a resilient client does (bounded).
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          answers.push((await sb.call('POST', path, body)).status);
          break;
        } catch {
          dropped++;
        }
      }
    }
    expect(answers).toHaveLength(30);
    expect(dropped).toBeGreaterThan(0);
    // 409: the dropped attempt had been applied, so the retry found the import_id taken.
    expect(answers).toContain(201);
    expect(answers).toContain(409);
    expect(answers.every((s) => s === 201 || s === 409)).toBe(true);
    const txns = [...sb.state.budgets[0]!.rec.transactions.values()].filter((t) => t.memo?.startsWith('half-') && !t.deleted);
    expect(txns).toHaveLength(30);
    expect(new Set(txns.map((t) => t.memo)).size).toBe(30);
  });
});

describe('slow', () => {
  it('delays answers; past the request timeout the request ends with 503 and applies nothing', async () => {
    const timeout = 300;
    const sb = await faulty('slow=1', { requestTimeoutMs: timeout });
    const { checking, path } = target(sb);
    const results = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const memo = `slow-${i}`;
        const started = performance.now();
        const res = await sb.call('POST', path, createBody(checking.id, memo));
        return { memo, status: res.status, body: res.body, ms: performance.now() - started };
      }),
    );
    const memos = applied(sb, 'slow-');
    const ok = results.filter((r) => r.status === 201);
    const timedOut = results.filter((r) => r.status === 503);
    expect(ok.length + timedOut.length).toBe(results.length);
    expect(ok.length).toBeGreaterThan(0);
    expect(timedOut.length).toBeGreaterThan(0);
    for (const r of timedOut) {
      expect(r.body.error).toMatchObject({ id: '503', name: 'service_unavailable' });
      expect(r.body.error.detail).toMatch(/longer than/);
      expect(r.ms).toBeGreaterThanOrEqual(timeout - 5);
      expect(memos.has(r.memo)).toBe(false);
    }
    for (const r of ok) expect(memos.has(r.memo)).toBe(true);
    // Successful answers were delayed by up to the timeout: on average clearly so.
    const mean = ok.reduce((s, r) => s + r.ms, 0) / ok.length;
    expect(mean).toBeGreaterThan(timeout * 0.15);
  });
});

describe('echo-auth', () => {
  it('answers 500 with the Authorization header in the detail', async () => {
    const sb = await faulty('echo-auth=1');
    const res = await sb.get('/user');
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ id: '500', name: 'internal_server_error' });
    expect(res.body.error.detail).toContain(`Bearer ${sb.accessToken}`);
    const other = await sb.get('/user', sb.readOnlyToken);
    expect(other.body.error.detail).toContain(sb.readOnlyToken);
  });
});

describe('mixed probabilities', () => {
  it('draw each outcome per request, repeatably for the same seed', async () => {
    const spec = '500=0.3,503=0.3';
    const statuses = async (sb: TestSandbox) => {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await sb.get('/user')).status);
      return out;
    };
    const a = await statuses(await faulty(spec, { seed: 'repeat' }));
    const b = await statuses(await faulty(spec, { seed: 'repeat' }));
    expect(a).toEqual(b);
    for (const s of [200, 500, 503]) expect(a).toContain(s);
    expect(new Set(a)).toEqual(new Set([200, 500, 503]));
  });

  it('with no spec or zero probabilities never fault', async () => {
    for (const spec of ['', '500=0,reset=0']) {
      const sb = await faulty(spec);
      for (let i = 0; i < 20; i++) expect((await sb.get('/user')).status).toBe(200);
    }
  });
});

describe('spec parsing', () => {
  it('accepts every kind with a probability', () => {
    expect(parseFaults('')).toEqual(new Map());
    expect(parseFaults('500=0.05,503=0.05,reset=0.02,slow=0.02')).toEqual(
      new Map([
        ['500', 0.05],
        ['503', 0.05],
        ['reset', 0.02],
        ['slow', 0.02],
      ]),
    );
    expect(parseFaults(' echo-auth=1 ')).toEqual(new Map([['echo-auth', 1]]));
    expect(parseFaults('500=.5,503=0.5')).toEqual(
      new Map([
        ['500', 0.5],
        ['503', 0.5],
      ]),
    );
    // Floating point: these add up to 1.
    expect(parseFaults('500=0.1,503=0.2,reset=0.7').size).toBe(3);
    expect(FAULT_KINDS).toEqual(['500', '503', 'reset', 'silent', 'slow', 'echo-auth']);
  });

  it.each([
    ['timeout=0.1', /unknown fault "timeout"/],
    ['429=0.1', /unknown fault "429".*expected one of 500, 503, reset, silent, slow, echo-auth/],
    ['500', /500 needs a probability between 0 and 1/],
    ['500=', /500 needs a probability/],
    ['500=1.5', /500 needs a probability between 0 and 1/],
    ['500=-0.1', /500 needs a probability/],
    ['500=abc', /500 needs a probability/],
    ['500=0x1', /500 needs a probability/],
    ['500=0.1=0.2', /500 needs a probability/],
    ['500=0.6,503=0.6', /add up to 1.2.*at most 1/],
    ['500=0.5,500=0.5', /500 is given twice/],
  ])('refuses %j', (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(FaultSpecError);
    expect(() => parseFaults(spec)).toThrow(message);
  });

  it('refuses a bad spec at start', async () => {
    await expect(testSandbox({ faults: 'reset=2' })).rejects.toThrow(FaultSpecError);
  });

  it.each([
    ['bogus=0.1', /unknown fault "bogus"/],
    ['500=2', /500 needs a probability/],
    ['500=0.7,503=0.7', /add up to/],
  ])('makes the CLI exit with code 2 for --faults %j, naming the flag', async (spec, message) => {
    const run = await runCli(['sandbox', '--port', '0', '--faults', spec]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--faults/);
    expect(run.stderr).toMatch(message);
  });
});
