/**
 * The warm-up's made-up budget (src/hosted/warm-budget.ts) is shaped as a household's year and its
 * figures add up as YNAB's do: each account's balances are its rows' sums, each transfer has its
 * other side, each split's parts make up its amount, each month's activity is its rows', and Ready
 * to Assign is income less what was assigned. Each figure is recomputed here from the rows. It
 * reads into a copy and answers every read the warm-up asks of it. Needs nothing.
 */
import { describe, expect, it } from 'vitest';
import { warmBudget, WARM_BUDGET_ID, WARM_MONTHS } from '../../src/hosted/warm-budget.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { answerFromReplica } from '../../src/sync/replica-reads.js';

const TODAY = '2026-03-09';
const b = warmBudget(TODAY);
const rows = b.transactions!;
const parts = b.subtransactions!;

describe("the warm-up's made-up budget", () => {
  it('is a year of a household: rows of every kind an export has, none after today', () => {
    expect(b.months).toHaveLength(WARM_MONTHS);
    expect(b.first_month).toBe('2025-04-01');
    expect(rows.length).toBeGreaterThan(400);
    expect(rows.every((t) => t.date >= b.first_month! && t.date <= TODAY)).toBe(true);
    // Every field present, as an export has them (null when unset), so the rows take the shapes real ones do.
    expect(new Set(rows.map((t) => Object.keys(t).length)).size).toBe(1);
    const kinds = {
      memo: rows.some((t) => t.memo),
      flag: rows.some((t) => t.flag_color),
      imported: rows.some((t) => t.import_id && t.import_payee_name),
      unapproved: rows.some((t) => !t.approved),
      uncleared: rows.some((t) => t.cleared === 'uncleared'),
      reconciled: rows.some((t) => t.cleared === 'reconciled'),
      transfer: rows.some((t) => t.transfer_transaction_id),
      debt: rows.some((t) => t.debt_transaction_type),
      split: parts.length > 0,
      scheduled: b.scheduled_transactions!.length > 0,
    };
    expect(Object.entries(kinds).filter(([, has]) => !has)).toEqual([]);
  });

  it("balances are the rows' sums; transfers pair up; splits add up", () => {
    for (const a of b.accounts!) {
      const own = rows.filter((t) => t.account_id === a.id);
      expect(a.balance, a.name).toBe(own.reduce((s, t) => s + t.amount, 0));
      expect(a.cleared_balance, a.name).toBe(own.filter((t) => t.cleared !== 'uncleared').reduce((s, t) => s + t.amount, 0));
      expect(a.balance - a.cleared_balance, a.name).toBe(a.uncleared_balance);
    }
    const byId = new Map(rows.map((t) => [t.id, t]));
    for (const t of rows.filter((r) => r.transfer_transaction_id)) {
      const other = byId.get(t.transfer_transaction_id!)!;
      expect(other.transfer_transaction_id).toBe(t.id);
      expect(other.amount).toBe(-t.amount);
      expect(other.account_id).toBe(t.transfer_account_id);
    }
    for (const t of rows.filter((r) => parts.some((p) => p.transaction_id === r.id))) {
      expect(t.category_id).toBeNull();
      expect(parts.filter((p) => p.transaction_id === t.id).reduce((s, p) => s + p.amount, 0)).toBe(t.amount);
    }
    expect(new Set(rows.map((t) => t.id)).size).toBe(rows.length);
  });

  it("each month's activity is its rows' (on budget), and Ready to Assign is income less what was assigned", () => {
    const onBudget = new Set(b.accounts!.filter((a) => a.on_budget).map((a) => a.id));
    const card = b.accounts!.find((a) => a.type === 'creditCard')!;
    const cardCategory = b.categories!.find((c) => c.name === card.name)!.id;
    const checking = b.accounts!.find((a) => a.type === 'checking')!;
    let assigned = 0;
    let income = 0;
    for (const m of [...b.months!].reverse()) {
      const inMonth = rows.filter((t) => t.date.slice(0, 7) === m.month.slice(0, 7) && onBudget.has(t.account_id));
      for (const c of m.categories.filter((c) => !c.internal)) {
        const own = inMonth.flatMap((t) => {
          const split = parts.filter((p) => p.transaction_id === t.id);
          const lines = split.length ? split.map((p) => ({ amount: p.amount, category_id: p.category_id })) : [t];
          const spent = lines.filter((l) => l.category_id === c.id).reduce((s, l) => s + l.amount, 0);
          // Spending on the card moves its amount to the card's payment category (not the card's own payment from checking).
          const moved = c.id === cardCategory && t.account_id === card.id && t.transfer_account_id !== checking.id ? -t.amount : 0;
          return [spent + moved];
        });
        expect(c.activity, `${m.month} ${c.name}`).toBe(own.reduce((s, x) => s + x, 0));
      }
      expect(m.activity).toBe(m.categories.filter((c) => !c.internal).reduce((s, c) => s + c.activity, 0));
      expect(m.budgeted).toBe(m.categories.reduce((s, c) => s + c.budgeted, 0));
      const readyToAssign = m.categories.find((c) => c.name === 'Inflow: Ready to Assign')!.id;
      expect(m.income).toBe(inMonth.filter((t) => t.category_id === readyToAssign).reduce((s, t) => s + t.amount, 0));
      income += m.income;
      assigned += m.budgeted;
      expect(m.to_be_budgeted, m.month).toBe(income - assigned);
    }
  });

  it('reads into a copy that answers every read the warm-up asks of it', () => {
    const copy = BudgetReplica.fromExport(b, 1, Date.parse(`${TODAY}T12:00:00Z`));
    for (const id of ['getAccounts', 'getCategories', 'getPayees', 'getTransactions', 'getPlanMonth', 'getScheduledTransactions'] as const) {
      expect(() => answerFromReplica(copy, id, { budget_id: WARM_BUDGET_ID, month: 'current' }, {}, new Date(`${TODAY}T12:00:00Z`)), id).not.toThrow();
    }
    expect(
      (answerFromReplica(copy, 'getAccounts', { budget_id: WARM_BUDGET_ID }, {}, new Date(`${TODAY}T12:00:00Z`)) as { accounts: unknown[] }).accounts,
    ).toHaveLength(b.accounts!.length);
  });
});
