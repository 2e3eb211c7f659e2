/**
 * `ynab-mcp sandbox --from FILE` (issue 60 item 1): a budget export served by the sandbox over
 * real HTTP. The three shapes of the file; what the budget keeps (ids, names, dates, cleared and
 * approved states, flags, memos, splits, transfers, scheduled transactions and their lines,
 * targets, notes, the currency format), checked field by field against the file's raw JSON; the
 * months' figures as YNAB computed them, and the load's report where the sandbox's own arithmetic
 * differs; a write on top moving YNAB's figure by the write's amount; and each refusal, with what
 * is wrong and where, with nothing served.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_MAX_BYTES } from '../../src/sandbox/export/load-export.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/actual-ynab5/ynab5-demo-budget.json');
const NOW = new Date('2026-11-26T12:00:00Z');
const clock = () => NOW;
const data = () => JSON.parse(readFileSync(FIXTURE, 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'export-load-'));
let n = 0;
function file(content: unknown): string {
  const path = join(dir, `export-${++n}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a budget export served by the sandbox', () => {
  let sb: TestSandbox;
  const log: string[] = [];
  const e = data().budget;
  const b = `/budgets/${e.id}`;

  beforeAll(async () => {
    sb = await testSandbox({ from: FIXTURE, clock, log: (l) => log.push(l) });
  });
  afterAll(() => sb.close());

  it('serves the file as the only budget, in each of its three shapes', async () => {
    expect((await sb.get('/budgets')).body.data.budgets.map((x: any) => [x.id, x.name])).toEqual([[e.id, 'Test']]);
    const whole = file({ data: data() });
    const alone = file(data().budget);
    for (const from of [whole, alone]) {
      const other = await testSandbox({ from, clock });
      try {
        expect((await other.get('/budgets')).body.data.budgets.map((x: any) => x.id)).toEqual([e.id]);
      } finally {
        await other.close();
      }
    }
  });

  it('keeps ids, dates, cleared and approved states, flags, memos, splits and transfers', async () => {
    const served = new Map((await sb.get(`${b}/transactions`)).body.data.transactions.map((t: any) => [t.id, t]));
    expect(served.size).toBe(e.transactions.length);
    for (const t of e.transactions) {
      const s: any = served.get(t.id);
      for (const f of ['date', 'amount', 'memo', 'cleared', 'approved', 'flag_color', 'account_id', 'category_id', 'transfer_account_id', 'import_id'])
        expect([t.id, f, s[f]]).toEqual([t.id, f, t[f]]);
      expect([t.id, s.flag_name]).toEqual([t.id, t.flag_name ?? null]);
      expect([t.id, s.payee_id]).toEqual([t.id, t.payee_id || null]);
      expect([t.id, s.transfer_transaction_id]).toEqual([t.id, t.transfer_transaction_id]);
      const lines = e.subtransactions.filter((x: any) => x.transaction_id === t.id);
      expect(s.subtransactions.map((x: any) => [x.id, x.amount, x.memo, x.payee_id, x.category_id, x.transfer_account_id])).toEqual(
        lines.map((x: any) => [x.id, x.amount, x.memo, x.payee_id, x.category_id, x.transfer_account_id]),
      );
    }
  });

  it('keeps scheduled transactions with their lines, targets, notes and the currency format', async () => {
    const scheduled = new Map((await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions.map((s: any) => [s.id, s]));
    for (const s of e.scheduled_transactions) {
      const got: any = scheduled.get(s.id);
      for (const f of ['date_first', 'frequency', 'amount', 'memo', 'flag_color', 'account_id', 'payee_id', 'category_id', 'transfer_account_id'])
        expect([s.id, f, got[f]]).toEqual([s.id, f, s[f]]);
      const lines = e.scheduled_subtransactions.filter((x: any) => x.scheduled_transaction_id === s.id);
      expect(got.subtransactions.map((x: any) => [x.id, x.amount, x.memo, x.category_id])).toEqual(
        lines.map((x: any) => [x.id, x.amount, x.memo, x.category_id]),
      );
    }
    const categories = new Map((await sb.get(`${b}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories).map((c: any) => [c.id, c]));
    for (const c of e.categories) {
      const got: any = categories.get(c.id);
      for (const f of ['name', 'hidden', 'note', 'category_group_id', 'goal_type', 'goal_day', 'goal_cadence', 'goal_cadence_frequency', 'goal_creation_month'])
        expect([c.id, f, got[f]]).toEqual([c.id, f, c[f]]);
      // Without a target the API shows no target amount (this older export said 0).
      expect([c.id, got.goal_target]).toEqual([c.id, c.goal_type ? c.goal_target : null]);
      expect([c.id, got.goal_target_date]).toEqual([c.id, c.goal_target_month]);
    }
    expect((await sb.get(`${b}/settings`)).body.data.settings).toEqual({ date_format: e.date_format, currency_format: e.currency_format });
  });

  it("answers every month with YNAB's figures, and the load names each figure the sandbox computes otherwise", async () => {
    for (const m of e.months) {
      const got = (await sb.get(`${b}/months/${m.month}`)).body.data.month;
      for (const f of ['income', 'budgeted', 'activity', 'to_be_budgeted', 'age_of_money']) expect([m.month, f, got[f]]).toEqual([m.month, f, m[f]]);
      const cats = new Map(got.categories.map((c: any) => [c.id, c]));
      for (const c of m.categories) {
        const g: any = cats.get(c.id);
        for (const f of ['budgeted', 'activity', 'balance', 'goal_percentage_complete', 'goal_under_funded', 'goal_overall_left'])
          expect([m.month, c.name, f, g[f]]).toEqual([m.month, c.name, f, c[f]]);
      }
    }
    expect(log).toContain('sandbox: differs: 2023-09 "Inflow: Ready to Assign" balance: the export says $1,000.00, the sandbox computes $850.00');
    expect(log).toContain('sandbox: differs: 2023-09 to_be_budgeted: the export says $900.00, the sandbox computes $850.00');
    expect(log.some((l) => /reproduces 111 of 114 category-month figures/.test(l))).toBe(true);
    const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts;
    expect(accounts.map((a: any) => [a.id, a.balance, a.cleared_balance])).toEqual(e.accounts.map((a: any) => [a.id, a.balance, a.cleared_balance]));
  });

  it("moves YNAB's figures by what a write changes, never back to the sandbox's own", async () => {
    const groceries = e.categories.find((c: any) => c.name === 'Groceries').id;
    const before = (await sb.get(`${b}/months/2023-09-01`)).body.data.month;
    const created = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: e.accounts[0].id, date: '2023-09-10', amount: -10000, category_id: groceries, payee_name: 'Store' },
    });
    expect(created.status).toBe(201);
    const after = (await sb.get(`${b}/months/2023-09-01`)).body.data.month;
    const cat = (m: any) => m.categories.find((c: any) => c.id === groceries);
    expect(cat(after).activity).toBe(cat(before).activity - 10000);
    expect(after.activity).toBe(before.activity - 10000);
    // The overspending comes off the next month's Ready to Assign; YNAB's 900.00 stays the start.
    expect(after.to_be_budgeted).toBe(before.to_be_budgeted);
    const account = (await sb.get(`${b}/accounts/${e.accounts[0].id}`)).body.data.account;
    expect(account.balance).toBe(e.accounts[0].balance - 10000);
  });
});

describe('an export that cannot be loaded is refused, and nothing is served', () => {
  const refused = (from: string) => testSandbox({ from, clock });

  it('another shape', async () => {
    await expect(refused(file({ data: { budgets: [] } }))).rejects.toThrow(/this is the list of budgets \(GET \/budgets\), not one budget's export/);
    await expect(refused(file({ data: { accounts: [] } }))).rejects.toThrow(
      /another shape \(top-level keys: accounts\); expected the JSON of GET \/budgets\/\{id\}/,
    );
    await expect(refused(file([1, 2]))).rejects.toThrow(/the top level is a list/);
  });

  it('truncated JSON, with where it ends', async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    await expect(refused(file(text.slice(0, 30_000)))).rejects.toThrow(
      /the JSON is truncated: it ends at byte 30,000 \(line \d+, column \d+\) before the export does/,
    );
  });

  it('a file over the documented cap, refused before it is read', async () => {
    const path = join(dir, 'huge.json');
    writeFileSync(path, '');
    truncateSync(path, EXPORT_MAX_BYTES + 1); // sparse: no disk used
    await expect(refused(path)).rejects.toThrow(`268,435,457 bytes is larger than the 268,435,456-byte cap on a budget export`);
  });

  it('a transaction whose account is missing, named with its place and id', async () => {
    const d = data();
    d.budget.transactions[1].account_id = '00000000-0000-4000-8000-000000000000';
    await expect(refused(file(d))).rejects.toThrow(
      /budget\.transactions\[1\] \(id a86c1bbd-cb62-4c3c-b14e-492a25e8d171\): its account "00000000-0000-4000-8000-000000000000" is not among the export's 2 accounts/,
    );
    const s = data();
    s.budget.scheduled_transactions[0].account_id = 'gone';
    await expect(refused(file(s))).rejects.toThrow(/budget\.scheduled_transactions\[0\] \(id 1db8beb8-ef31-4a07-b9a5-0648b1e3071a\): its account "gone"/);
  });

  it('a currency without a format', async () => {
    const d = data();
    d.budget.currency_format = null;
    await expect(refused(file(d))).rejects.toThrow(/budget\.currency_format is null: the budget's currency has no format/);
    delete d.budget.currency_format;
    await expect(refused(file(d))).rejects.toThrow(/budget\.currency_format is missing/);
    const p = data();
    delete p.budget.currency_format.decimal_digits;
    await expect(refused(file(p))).rejects.toThrow(/budget\.currency_format\.decimal_digits: .*the currency's format is incomplete/);
  });

  it('--from with --data, which would serve the saved copy next time', async () => {
    await expect(testSandbox({ from: FIXTURE, dataFile: join(dir, 'data.json'), clock })).rejects.toThrow(/cannot be combined with --data/);
  });
});
