/**
 * Fidelity on a budget YNAB computed (issue 60 item 5). actual's public export
 * (test/fixtures/actual-ynab5, MIT) loaded with `--from`, checked from two sides: every month and
 * category figure the sandbox answers equals the file's, and spending_summary, cash_flow,
 * list_accounts, targets_summary and needs_attention, through a real MCP client, answer with
 * figures recomputed here from the file's raw JSON (never from src/). Then each demo budget
 * exported through the sandbox's own API (GET /budgets/{id}) and loaded into a fresh sandbox:
 * every raw endpoint answers the same, and every insight tool gives the same figures.
 * The clock is fixed (fake Date) so both sides see the same today.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/actual-ynab5/ynab5-demo-budget.json');
const e = JSON.parse(readFileSync(FIXTURE, 'utf8')).budget;
const RTA = e.categories.find((c: any) => c.name === 'Inflow: Ready to Assign').id;
const onBudget = new Set(e.accounts.filter((a: any) => a.on_budget).map((a: any) => a.id));
const payeeName = (id: string | null) => e.payees.find((p: any) => p.id === id)?.name ?? null;

/** Every budget line of the file: a transaction's own, or its split lines, with its date and account. */
function lines(): { date: string; account_id: string; amount: number; category_id: string | null; transfer_account_id: string | null; payee: string | null }[] {
  return e.transactions
    .filter((t: any) => !t.deleted)
    .flatMap((t: any) => {
      const split = e.subtransactions.filter((x: any) => x.transaction_id === t.id && !x.deleted);
      const own = split.length ? split : [t];
      return own.map((l: any) => ({
        date: t.date,
        account_id: t.account_id,
        amount: l.amount,
        category_id: l.category_id,
        transfer_account_id: l.transfer_account_id,
        payee: payeeName(t.payee_id),
      }));
    });
}

describe("actual's public export, loaded", () => {
  let h: McpHarness;
  const b = `/budgets/${e.id}`;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2023-10-15T12:00:00Z') });
    h = await mcpHarness({ sandbox: { from: FIXTURE } });
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('answers every month and category figure as the export has it', async () => {
    const FIELDS = [
      'budgeted',
      'activity',
      'balance',
      'goal_percentage_complete',
      'goal_months_to_budget',
      'goal_under_funded',
      'goal_overall_funded',
      'goal_overall_left',
    ];
    let compared = 0;
    for (const m of e.months) {
      const got = (await h.sb.get(`${b}/months/${m.month}`)).body.data.month;
      for (const f of ['income', 'budgeted', 'activity', 'to_be_budgeted', 'age_of_money']) expect([m.month, f, got[f]]).toEqual([m.month, f, m[f]]);
      const cats = new Map(got.categories.map((c: any) => [c.id, c]));
      for (const c of m.categories) {
        const g: any = cats.get(c.id);
        for (const f of FIELDS) expect([m.month, c.name, f, g[f]]).toEqual([m.month, c.name, f, c[f]]);
        compared += FIELDS.length;
      }
    }
    expect(compared).toBe(38 * FIELDS.length);
  });

  it('list_accounts gives the export balances and their net worth', async () => {
    const res = ok(await h.call('list_accounts', {}));
    expect(res.accounts.map((a: any) => [a.name, a.balance, a.cleared_balance, a.uncleared_balance])).toEqual(
      e.accounts.map((a: any) => [a.name, a.balance, a.cleared_balance, a.uncleared_balance]),
    );
    expect(res.totals.net_worth).toBe(e.accounts.reduce((s: number, a: any) => s + a.balance, 0));
  });

  it('spending_summary sums the lines of each category, transfers and income apart', async () => {
    const res = ok(await h.call('spending_summary', { since_date: '2023-08-01', until_date: '2023-09-30' }));
    const by = new Map<string, { net: number; count: number }>();
    for (const l of lines()) {
      if (l.date < '2023-08-01' || l.date > '2023-09-30' || !onBudget.has(l.account_id) || l.category_id === RTA) continue;
      if (l.transfer_account_id && onBudget.has(l.transfer_account_id)) continue;
      const name = e.categories.find((c: any) => c.id === l.category_id).name;
      const row = by.get(name) ?? { net: 0, count: 0 };
      by.set(name, { net: row.net + l.amount, count: row.count + 1 });
    }
    expect(res.rows.map((r: any) => [r.name, r.net, r.count])).toEqual([...by].map(([name, r]) => [name, r.net, r.count]));
    expect(res.totals.net).toBe([...by.values()].reduce((s, r) => s + r.net, 0));
  });

  it("cash_flow takes each month's income (opening balances apart) and spending from the export's months", async () => {
    const res = ok(await h.call('cash_flow', { months: 2 }));
    const months = ['2023-08-01', '2023-09-01'];
    expect(res.months).toEqual(months);
    const opening = (m: string) =>
      lines()
        .filter((l) => l.date.slice(0, 7) === m.slice(0, 7) && l.payee === 'Starting Balance' && l.category_id === RTA)
        .reduce((s, l) => s + l.amount, 0);
    const month = (m: string) => e.months.find((x: any) => x.month === m);
    expect(res.by_month.income).toEqual(months.map((m) => month(m).income - opening(m)));
    expect(res.by_month.spending).toEqual(months.map((m) => 0 - month(m).activity));
  });

  it("targets_summary counts the month's targets and takes Ready to Assign from the export", async () => {
    const res = ok(await h.call('targets_summary', { month: '2023-08-01' }));
    const m = e.months.find((x: any) => x.month === '2023-08-01');
    const targets = e.categories.filter((c: any) => c.goal_type && !c.hidden && !c.deleted);
    expect(res.totals.count).toBe(targets.length);
    expect(res.totals.underfunded).toBe(m.categories.reduce((s: number, c: any) => s + (c.goal_under_funded ?? 0), 0));
    expect(res.totals.ready_to_assign).toBe(m.to_be_budgeted);
  });

  it("needs_attention gives the export's Ready to Assign, carried into the month after its last", async () => {
    const res = ok(await h.call('needs_attention', {}));
    const last = e.months.reduce((x: any, y: any) => (x.month > y.month ? x : y));
    // Nothing arrives or is assigned between the export's last month and today.
    expect(lines().filter((l) => l.date >= '2023-10-01' && l.date <= '2023-10-15')).toEqual([]);
    expect(res.attention.find((a: any) => a.kind === 'ready_to_assign')).toMatchObject({ ready_to_assign: last.to_be_budgeted });
  });
});

const INSIGHTS = [
  'spending_summary',
  'search_transactions',
  'needs_attention',
  'credit_cards',
  'cash_flow',
  'upcoming',
  'debt_payoff',
  'targets_summary',
  'review_transactions',
  'forecast',
  'recurring',
];

/** An answer without what differs between two servers by nature: how fresh their copies are. */
function figures(result: any): unknown {
  const { freshness: _f, ...rest } = ok(result) ?? {};
  return rest;
}

describe('each demo budget, exported through the sandbox API and loaded into a fresh sandbox', () => {
  let demo: McpHarness;
  const dir = mkdtempSync(join(tmpdir(), 'export-fidelity-'));

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-15T12:00:00Z') });
    demo = await mcpHarness();
  });
  afterAll(async () => {
    await demo.close();
    rmSync(dir, { recursive: true, force: true });
    vi.useRealTimers();
  });

  it.each(['Demo Household', 'Haushalt Berlin'])('%s: every raw endpoint and every insight tool answers the same', async (name) => {
    const budget = (await demo.sb.get('/budgets')).body.data.budgets.find((x: any) => x.name === name);
    const b = `/budgets/${budget.id}`;
    const file = join(dir, `${budget.id}.json`);
    writeFileSync(file, JSON.stringify((await demo.sb.get(b)).body));
    // Another seed: a sandbox that ignored the file would serve other demo budgets.
    const loaded = await mcpHarness({ sandbox: { from: file, seed: 'not-the-demo' } });
    try {
      expect((await loaded.sb.get('/budgets')).body.data.budgets.map((x: any) => x.id)).toEqual([budget.id]);
      const months = (await demo.sb.get(`${b}/months`)).body.data.months.map((m: any) => m.month);
      const paths = [
        b,
        `${b}/accounts`,
        `${b}/categories`,
        `${b}/months`,
        `${b}/payees`,
        `${b}/payee_locations`,
        `${b}/transactions`,
        `${b}/scheduled_transactions`,
        `${b}/settings`,
      ];
      for (const path of [...paths, ...months.map((m: string) => `${b}/months/${m}`)]) {
        expect([path, (await loaded.sb.get(path)).body]).toEqual([path, (await demo.sb.get(path)).body]);
      }
      for (const tool of INSIGHTS) {
        const args = { budget_id: budget.id };
        expect([tool, figures(await loaded.call(tool, args))]).toEqual([tool, figures(await demo.call(tool, args))]);
      }
    } finally {
      await loaded.close();
    }
  });
});
