/**
 * Writes happen exactly once through a flaky network. Against a sandbox that fails 20% of
 * requests (500, 503, and dropped connections, half of them after the change was applied),
 * 500 single creates and 50 batch creates through real MCP tool calls end with exactly the
 * intended transactions: none missing, none doubled, and every result tells what happened.
 * The check at the end reads the sandbox's own records (fault-free).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budgetId: string;
let accounts: any[];
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness({
    sandbox: { seed: 'exactly-once', faults: '500=0.05,503=0.05,reset=0.1', requestTimeoutMs: 2_000 },
    stack: { retry: { baseDelayMs: 2, maxDelayMs: 20 } },
    maxStalenessMs: 60_000,
  });
  budgetId = h.sb.state.budgets[0]!.id;
  // Reads are retried by the client; a list call succeeds even through faults.
  accounts = ok(await h.call('list_accounts', { budget_id: budgetId })).accounts.filter((a: any) => a.on_budget && !a.closed);
}, 120_000);

afterAll(() => h.close());

function live(memoPrefix: string) {
  return [...h.sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.memo?.startsWith(memoPrefix));
}

describe('exactly once through 20% faults', () => {
  it('500 single creates and 50 batch creates', async () => {
    const intended = new Map<string, number>();
    const results: { memos: string[]; result: any }[] = [];
    const item = (memo: string, i: number) => {
      intended.set(memo, -(1000 + i));
      const base = { account_id: accounts[i % accounts.length].id, date: today, amount_milliunits: -(1000 + i), payee_name: `Flaky ${i % 7}`, memo };
      // Every tenth carries an import_id: found by it when an answer is lost.
      return i % 10 === 0 ? { ...base, import_id: `eo-import-${i}` } : base;
    };
    for (let i = 0; i < 500; i++) {
      const memo = `eo-single-${i}`;
      results.push({ memos: [memo], result: await h.call('create_transactions', { budget_id: budgetId, transactions: [item(memo, i)] }) });
    }
    for (let b = 0; b < 50; b++) {
      const memos = Array.from({ length: 4 }, (_, j) => `eo-batch-${b}-${j}`);
      results.push({
        memos,
        result: await h.call('create_transactions', { budget_id: budgetId, transactions: memos.map((m, j) => item(m, 1000 + b * 4 + j)) }),
      });
    }

    // Every tool call reported success, with exactly its own transactions.
    const failed = results.filter((r) => r.result.isError).map((r) => `${r.memos[0]}: ${r.result.content[0].text}`);
    expect(failed).toEqual([]);
    for (const { memos, result } of results) {
      expect(result.structuredContent.transactions.map((t: any) => t.memo).sort()).toEqual([...memos].sort());
    }

    // The budget holds each intended transaction exactly once, with the intended amount.
    const rows = live('eo-');
    const counts = new Map<string, number>();
    for (const t of rows) counts.set(t.memo!, (counts.get(t.memo!) ?? 0) + 1);
    const doubled = [...counts].filter(([, n]) => n > 1).map(([m]) => m);
    const missing = [...intended.keys()].filter((m) => !counts.has(m));
    expect(doubled).toEqual([]);
    expect(missing).toEqual([]);
    expect(rows).toHaveLength(700);
    for (const t of rows) expect(t.amount).toBe(intended.get(t.memo!));

    // The faults really hit: some answers were lost after the change had been applied.
    const recovered = results.filter((r) => (r.result.structuredContent.notices ?? []).some((n: string) => /had been created anyway/.test(n)));
    const resent = results.filter((r) => (r.result.structuredContent.notices ?? []).some((n: string) => /Sending the \d+ not found/.test(n)));
    expect(recovered.length).toBeGreaterThan(5);
    expect(resent.length).toBeGreaterThan(5);
  }, 600_000);

  it('updates and deletes through faults apply once and say so', async () => {
    const created = ok(
      await h.call('create_transactions', {
        budget_id: budgetId,
        transactions: [{ account_id: accounts[0].id, date: today, amount: -3, payee_name: 'Flaky edit', memo: 'eo-edit' }],
      }),
    );
    const id = created.transaction_ids[0];
    for (let i = 0; i < 30; i++) {
      const res = await h.call('update_transaction', { budget_id: budgetId, transaction_id: id, memo: `eo-edit-${i}` });
      expect(res.isError, res.content[0].text).toBeFalsy();
      expect(h.sb.state.budgets[0]!.rec.transactions.get(id)!.memo).toBe(`eo-edit-${i}`);
    }
    // A delete answers with a preview first; the same call with its token applies it.
    const { result: del } = await confirmed(h, 'delete_transaction', { budget_id: budgetId, transaction_id: id });
    expect(del.isError, del.content[0].text).toBeFalsy();
    expect(h.sb.state.budgets[0]!.rec.transactions.get(id)!.deleted).toBe(true);
  }, 120_000);

  it('other creates (payees, groups, categories, scheduled) land once through faults', async () => {
    const rec = () => h.sb.state.budgets[0]!.rec;
    const group = ok(await h.call('create_category_group', { budget_id: budgetId, name: 'EO group' })).category_group.id;
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 40; i++) {
      for (const [tool, args] of [
        ['create_payee', { name: `EO payee ${i}` }],
        ['create_category', { name: `EO category ${i}`, category_group_id: group }],
        [
          'create_scheduled_transaction',
          { account_id: accounts[0].id, date: soon, amount_milliunits: -(500 + i), memo: `eo-scheduled-${i}`, frequency: 'monthly' },
        ],
      ] as const) {
        const res = await h.call(tool, { budget_id: budgetId, ...args });
        expect(res.isError, `${tool} ${i}: ${res.content[0].text}`).toBeFalsy();
      }
    }
    const count = <T extends { deleted: boolean }>(m: Map<string, T>, pick: (x: T) => string | null) => {
      const n = new Map<string, number>();
      for (const x of m.values()) if (!x.deleted) n.set(pick(x) ?? '', (n.get(pick(x) ?? '') ?? 0) + 1);
      return n;
    };
    const payees = count(rec().payees, (p) => p.name);
    const categories = count(rec().categories, (c) => c.name);
    const scheduled = count(rec().scheduled_transactions, (s) => s.memo);
    for (let i = 0; i < 40; i++) {
      expect(payees.get(`EO payee ${i}`), `payee ${i}`).toBe(1);
      expect(categories.get(`EO category ${i}`), `category ${i}`).toBe(1);
      expect(scheduled.get(`eo-scheduled-${i}`), `scheduled ${i}`).toBe(1);
    }
  }, 300_000);
});
