/**
 * Exactly once means identity, not resemblance. Two creates with identical content (two coffees,
 * one card, one day, one payee) are two transactions, when the answer of either is lost before
 * or after it reached the service, in one process and in two processes sharing a state
 * directory; a recovered result names its own transaction, never one another call made; and when
 * an identical transaction from a client this server cannot see makes the outcome unknowable, the
 * result says so and names the candidates. A proxy between the stacks and the sandbox cuts the
 * answer of a chosen create.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NetworkError, PartialWriteError, UncertainWriteError } from '../../src/api/client/errors.js';
import { describeError } from '../../src/mcp/answer/errors.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import { cutProxy, type CutProxy } from '../helpers/cut-proxy.js';
import { runTogether, startChild } from '../helpers/go-child.js';
import { mcpHarness } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const CREATE = /\/transactions$/;
const today = new Date().toISOString().slice(0, 10);

let sb: TestSandbox;
let proxy: CutProxy;
let budget: string;
let account: string;
let dir: string;
let stacks: Stack[] = [];
let run = 0;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'identity', rateLimit: 100_000 });
  proxy = await cutProxy(sb.baseUrl);
  budget = sb.state.budgets[0]!.id;
  account = (await sb.get(`/budgets/${budget}/accounts`)).body.data.accounts.find((a: any) => a.on_budget && !a.closed && a.type === 'checking').id;
});

afterAll(async () => {
  await proxy.close();
  await sb.close();
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-identity-'));
  run += 1;
});

afterEach(async () => {
  for (const s of stacks) await s.close();
  stacks = [];
  rmSync(dir, { recursive: true, force: true });
});

function stack(): Stack {
  const s = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: proxy.baseUrl,
    stateDir: dir,
    persist: false,
    quotaLimit: 100_000,
    retry: { baseDelayMs: 2, maxDelayMs: 10 },
    log: () => {},
  });
  stacks.push(s);
  return s;
}

/** One coffee: the same content every time within a test. */
function coffee(memo = `coffee ${run}`) {
  return { account_id: account, date: today, amount: -4_500, payee_name: 'Corner Café', memo };
}

/** The live transactions in the sandbox's own records with this memo. */
function live(memo = `coffee ${run}`) {
  return [...sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.memo === memo);
}

function create(s: Stack, body: unknown) {
  return s.service.call('createTransaction', { params: { budget_id: budget }, body });
}

/**
 * One coffee whose create is cut `when` (before it reaches YNAB, or after), while an identical
 * coffee is made directly at the sandbox (a client this server cannot see) before the answer is
 * missed. Resolves with what the create threw (undefined if it succeeded) and the foreign id.
 */
async function coffeeWithForeignTwin(when: 'before' | 'after'): Promise<{ outcome: Error | undefined; foreign: string }> {
  const s = stack();
  await s.service.call('getAccounts', { params: { budget_id: budget } });
  let foreign = '';
  const makeTwin = async () => {
    foreign = (await sb.call('POST', `/budgets/${budget}/transactions`, { transaction: coffee() })).body.data.transaction.id;
  };
  const cut = proxy.cut({ method: 'POST', path: CREATE, when, ...(when === 'before' ? { hold: makeTwin } : { meanwhile: makeTwin }) });
  const outcome = await create(s, { transaction: coffee() }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  await cut;
  return { outcome, foreign };
}

describe('one process, one after the other', () => {
  for (const when of ['before', 'after'] as const) {
    it(`two identical creates, the second's answer cut ${when} it reached YNAB: two transactions, each result its own`, async () => {
      const s = stack();
      const first = await create(s, { transaction: coffee() });
      const cut = proxy.cut({ method: 'POST', path: CREATE, when });
      const second = await create(s, { transaction: coffee() });
      await cut;
      const rows = live();
      expect(rows).toHaveLength(2);
      expect(first.data.transaction_ids).toHaveLength(1);
      expect(second.data.transaction_ids).toHaveLength(1);
      expect(second.data.transaction_ids[0]).not.toBe(first.data.transaction_ids[0]);
      expect(new Set([...first.data.transaction_ids, ...second.data.transaction_ids])).toEqual(new Set(rows.map((t) => t.id)));
      expect(second.notices!.join(' ')).toMatch(when === 'before' ? /not found in YNAB again/ : /created anyway/);
    });
  }

  it('the first of two identical creates cut after, then the second: two transactions', async () => {
    const s = stack();
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'after' });
    const first = await create(s, { transaction: coffee() });
    await cut;
    const second = await create(s, { transaction: coffee() });
    expect(live()).toHaveLength(2);
    expect(second.data.transaction_ids[0]).not.toBe(first.data.transaction_ids[0]);
  });

  it('two identical creates at the same time in one process, one answer cut: two transactions', async () => {
    const s = stack();
    await s.service.call('getAccounts', { params: { budget_id: budget } });
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'before' });
    const [a, b] = await Promise.all([create(s, { transaction: coffee() }), create(s, { transaction: coffee() })]);
    await cut;
    expect(live()).toHaveLength(2);
    expect(a.data.transaction_ids[0]).not.toBe(b.data.transaction_ids[0]);
    expect(new Set([a.data.transaction_ids[0], b.data.transaction_ids[0]])).toEqual(new Set(live().map((t) => t.id)));
  });
});

describe('batches', () => {
  it('a batch of two identical purchases cut after: both found, each once', async () => {
    const s = stack();
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'after' });
    const res = await create(s, { transactions: [coffee(), coffee()] });
    await cut;
    expect(live()).toHaveLength(2);
    expect(new Set(res.data.transaction_ids)).toEqual(new Set(live().map((t) => t.id)));
  });

  for (const when of ['before', 'after'] as const) {
    it(`a second identical batch cut ${when}: four transactions, the second result names its own two`, async () => {
      const s = stack();
      const first = await create(s, { transactions: [coffee(), coffee(), coffee(`other ${run}`)] });
      const cut = proxy.cut({ method: 'POST', path: CREATE, when });
      const second = await create(s, { transactions: [coffee(), coffee(), coffee(`other ${run}`)] });
      await cut;
      expect(live()).toHaveLength(4);
      expect(live(`other ${run}`)).toHaveLength(2);
      expect(second.data.transaction_ids).toHaveLength(3);
      const firstIds = new Set(first.data.transaction_ids);
      for (const id of second.data.transaction_ids) expect(firstIds.has(id)).toBe(false);
      expect(new Set([...first.data.transaction_ids, ...second.data.transaction_ids]).size).toBe(6);
    });
  }
});

describe('a client this server cannot see', () => {
  it('an identical transaction made elsewhere while the answer is lost: the outcome is unknown and the candidates are named', async () => {
    const { outcome, foreign } = await coffeeWithForeignTwin('after');
    expect(outcome).toBeInstanceOf(UncertainWriteError);
    const message = outcome!.message;
    const rows = live();
    expect(rows).toHaveLength(2); // ours (applied, answer lost) and the foreign one; nothing sent again
    for (const t of rows) expect(message).toContain(t.id);
    expect(message).toContain(foreign);
    expect(message).toMatch(/cannot be known/);
    expect(message).toMatch(/-\$4\.50/);
    expect(message).toContain(today);
  });

  it('a batch with one such purchase: the others are created, the uncertain one is named, nothing is doubled', async () => {
    const s = stack();
    await s.service.call('getAccounts', { params: { budget_id: budget } });
    const cut = proxy.cut({
      method: 'POST',
      path: CREATE,
      when: 'after',
      meanwhile: async () => void (await sb.call('POST', `/budgets/${budget}/transactions`, { transaction: coffee() })),
    });
    const outcome = await create(s, { transactions: [coffee(), coffee(`tea ${run}`)] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await cut;
    expect(outcome).toBeInstanceOf(UncertainWriteError);
    expect(live()).toHaveLength(2);
    expect(live(`tea ${run}`)).toHaveLength(1);
    expect(outcome!.message).toContain(`Created by this call: ${live(`tea ${run}`)[0]!.id}`);
  });
});

describe('nothing proves the request arrived', () => {
  it('an identical transaction made elsewhere while a request that never arrived waits: named as the candidate, not claimed, nothing sent again', async () => {
    const { outcome, foreign } = await coffeeWithForeignTwin('before');
    // Before: the foreign coffee was taken as this call's ("had been created anyway").
    expect(outcome).toBeInstanceOf(UncertainWriteError);
    expect(outcome!.message).toContain(foreign);
    expect(outcome!.message).toMatch(/cannot be known/);
    expect(outcome!.message).toMatch(/Most likely (it is|they are) this call's, but nothing proves that its request arrived/);
    expect(outcome!.message).toMatch(/not claimed, and nothing was sent again/);
    expect(live().map((t) => t.id)).toEqual([foreign]);
  });

  it('an answer lost whole after the request arrived: the one that appeared is named, not claimed; the next identical create is a new transaction', async () => {
    const s = stack();
    const first = await create(s, { transaction: coffee() });
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'silent' });
    const outcome = await create(s, { transaction: coffee() }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await cut;
    expect(outcome).toBeInstanceOf(UncertainWriteError);
    const ours = live().find((t) => t.id !== first.data.transaction_ids[0])!;
    expect(live()).toHaveLength(2);
    expect(outcome!.message).toContain(ours.id);
    expect(outcome!.message).not.toContain(first.data.transaction_ids[0]);
    expect(outcome!.message).toMatch(/Most likely/);
    // Reported once, never claimed later: a third identical create makes a third transaction.
    const third = await create(s, { transaction: coffee() });
    expect(live()).toHaveLength(3);
    expect([first.data.transaction_ids[0], ours.id]).not.toContain(third.data.transaction_ids[0]);
  });

  it('a batch lost whole: every item is named with its candidate; none is claimed or sent again', async () => {
    const s = stack();
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'silent' });
    const outcome = await create(s, { transactions: [coffee(), coffee(), coffee(`tea ${run}`)] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await cut;
    expect(outcome).toBeInstanceOf(UncertainWriteError);
    expect(outcome!.message).toMatch(/for 3 of the 3 transaction\(s\) it cannot be known/);
    for (const t of [...live(), ...live(`tea ${run}`)]) expect(outcome!.message).toContain(t.id);
    expect(live()).toHaveLength(2);
    expect(live(`tea ${run}`)).toHaveLength(1);
  });

  it('a payee lost whole: the one that appeared is taken (nobody means two payees of one name)', async () => {
    const s = stack();
    await s.service.call('getPayees', { params: { budget_id: budget } });
    const name = `Silent Payee ${run}`;
    const cut = proxy.cut({ method: 'POST', path: /\/payees$/, when: 'silent' });
    const res = await s.service.call('createPayee', { params: { budget_id: budget }, body: { payee: { name } } });
    await cut;
    const held = [...sb.state.budgets[0]!.rec.payees.values()].filter((p) => !p.deleted && p.name === name);
    expect(held).toHaveLength(1);
    expect(res.data.payee.id).toBe(held[0]!.id);
    expect(res.notices!.join(' ')).toMatch(/created anyway/);
  });

  it('a status line that arrived before the body was cut proves the request arrived: the one that appeared is claimed', async () => {
    const s = stack();
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'after' });
    const res = await create(s, { transaction: coffee() });
    await cut;
    expect(res.data.transaction_ids).toEqual(live().map((t) => t.id));
    expect(res.notices!.join(' ')).toMatch(/answered 201, and the connection was lost before the rest of the answer/);
  });
});

describe('a refusal whose details were cut off', () => {
  it('is not sent again and not taken for a lost success: the error says it was refused and not applied', async () => {
    const s = stack();
    const before = proxy.count('POST', CREATE);
    const arrivedBefore = proxy.cuts.length;
    const cut = proxy.cut({ method: 'POST', path: CREATE, when: 'after' });
    const e = await create(s, { transaction: { ...coffee(), account_id: '00000000-0000-4000-8000-000000000000' } }).then(
      () => undefined,
      (x: unknown) => x as NetworkError,
    );
    await cut;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e!.answered).toBe(400);
    // One attempt: the cut one. Nothing passed on since (no resend).
    expect(proxy.cuts.length).toBe(arrivedBefore + 1);
    expect(proxy.count('POST', CREATE)).toBe(before);
    expect(describeError(e, 'create_transactions', true)).toMatch(/^YNAB refused the change .*answered 400.*it was not applied/);
  });
});

describe('a batch whose resend is refused', () => {
  it('after a lost answer: the result names the uncertain item and the one not created, not only the refusal', async () => {
    const s = stack();
    await s.service.call('getAccounts', { params: { budget_id: budget } });
    const twins: string[] = [];
    // The first request never arrives; meanwhile two coffees like ours are made elsewhere.
    const lost = proxy.cut({
      method: 'POST',
      path: CREATE,
      when: 'before',
      hold: async () => {
        for (let i = 0; i < 2; i++) twins.push((await sb.call('POST', `/budgets/${budget}/transactions`, { transaction: coffee() })).body.data.transaction.id);
      },
    });
    const refused = proxy.cut({ method: 'POST', path: CREATE, when: 'refuse', refuse: { status: 400, detail: 'the account is closed' } });
    const outcome = await create(s, { transactions: [coffee(), coffee(`tea ${run}`)] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await lost;
    await refused;
    expect(outcome).toBeInstanceOf(PartialWriteError);
    const message = outcome!.message;
    expect(message).toMatch(/none of the 2 was found created by this call/);
    expect(message).toMatch(/sending the other 1 \(transaction 2\) again failed: .*the account is closed.*not created: send only it again/);
    expect(message).toMatch(/cannot be known/);
    for (const id of twins) expect(message).toContain(id);
    expect(live()).toHaveLength(2);
    expect(live(`tea ${run}`)).toHaveLength(0);
  });
});

interface ChildResult {
  ids?: string[];
  notices?: string[];
  error?: string;
}

function child(body: unknown) {
  return startChild<ChildResult>(join(import.meta.dirname, 'fixtures', 'creator.ts'), {
    CREATOR_TOKEN: sb.accessToken,
    CREATOR_BASE_URL: proxy.baseUrl,
    CREATOR_STATE_DIR: dir,
    CREATOR_BUDGET: budget,
    CREATOR_BODY: JSON.stringify(body),
  });
}

describe('two processes sharing a state directory, at the same time', () => {
  for (const shape of ['single', 'batch'] as const) {
    for (const when of ['before', 'after'] as const) {
      it(`${shape}: identical creates, the first to arrive cut ${when} (the other process's request goes first): two transactions each`, async () => {
        const body = shape === 'single' ? { transaction: coffee() } : { transactions: [coffee(), coffee(`cake ${run}`)] };
        const already = proxy.cuts.length;
        // The cut request waits (at most 2 s) for the other process's create to be answered first,
        // so that, were identical intents not kept apart, the lost one's delta would hold the other's.
        const others = proxy.count('POST', CREATE);
        const cut = proxy.cut({
          method: 'POST',
          path: CREATE,
          when,
          hold: () => Promise.race([proxy.answered('POST', CREATE, others + 1), new Promise<void>((r) => setTimeout(r, 2_000))]),
        });
        const [ra, rb] = (await runTogether([child(body), child(body)])) as [ChildResult, ChildResult];
        await cut;
        expect(proxy.cuts.length).toBe(already + 1);
        expect(ra.error).toBeUndefined();
        expect(rb.error).toBeUndefined();
        const rows = live();
        expect(rows).toHaveLength(2);
        const named = [...ra.ids!, ...rb.ids!];
        expect(named).toHaveLength(shape === 'single' ? 2 : 4);
        expect(new Set(named).size).toBe(named.length);
        for (const t of rows) expect(named).toContain(t.id);
        if (shape === 'batch') expect(live(`cake ${run}`)).toHaveLength(2);
      }, 60_000);
    }
  }
});

describe('through a real MCP client', () => {
  it('create_transactions whose outcome cannot be known: an error result saying so and naming the candidates', async () => {
    let viaProxy: CutProxy | undefined;
    const h = await mcpHarness({
      sandbox: { seed: 'identity-mcp' },
      via: async (url) => (viaProxy = await cutProxy(url)).baseUrl,
      stack: { retry: { baseDelayMs: 2, maxDelayMs: 10 } },
    });
    try {
      const b = h.sb.state.budgets[0]!.id;
      const acct = (await h.sb.get(`/budgets/${b}/accounts`)).body.data.accounts.find((a: any) => a.on_budget && !a.closed).id;
      const purchase = { account_id: acct, date: today, amount_milliunits: -4_500, payee_name: 'Corner Café', memo: 'mcp coffee' };
      await h.call('list_accounts', { budget_id: b });
      const cut = viaProxy!.cut({
        method: 'POST',
        path: CREATE,
        when: 'after',
        meanwhile: async () =>
          void (await h.sb.call('POST', `/budgets/${b}/transactions`, {
            transaction: { account_id: acct, date: today, amount: -4_500, payee_name: 'Corner Café', memo: 'mcp coffee' },
          })),
      });
      const res = await h.call('create_transactions', { budget_id: b, transactions: [purchase] });
      await cut;
      expect(res.isError).toBe(true);
      const text = res.content[0].text as string;
      expect(text).toMatch(/^Outcome unknown: /);
      const rows = [...h.sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.memo === 'mcp coffee');
      expect(rows).toHaveLength(2);
      for (const t of rows) expect(text).toContain(t.id);
    } finally {
      await h.close();
      await viaProxy?.close();
    }
  });
});
