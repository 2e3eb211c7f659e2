/**
 * cash_flow and spending_summary agree on what spending is, month by month, and both agree with
 * the API's month activity and with the rule written out here from the raw transactions: every
 * line of a budget account, split lines on their own, less transfers between two budget accounts
 * and money to Ready to Assign; refunds count against spending, a transfer to a tracking account
 * is spending, and an account's starting balance given straight to a category is that
 * category's activity (YNAB's month counts it). Then cash_flow's money health: savings rate, age
 * of money (YNAB's), runway and net worth change, recomputed from the API's data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { lastDay, raw, rawLines, shiftMonth, thisMonth, todayUtc, type Raw } from './raw.js';

let h: McpHarness;
let r: Raw;
const today = todayUtc();

beforeAll(async () => {
  h = await mcpHarness();
  let base = await raw(h.sb);
  const id = (name: string) => base.categories.find((c: any) => c.name === name).id;
  const acc = (name: string) => base.accounts.find((a: any) => a.name === name);
  const post = async (path: string, body: unknown) => {
    const res = await h.sb.call('POST', `${base.b}${path}`, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body.data;
  };
  // A gift card whose opening balance the household gives straight to Groceries.
  const card = (await post('/accounts', { account: { name: 'Grocery Gift Card', type: 'cash', balance: 75_000 } })).account;
  base = await raw(h.sb);
  const opening = base.transactions.find((t: any) => t.account_id === card.id);
  const put = await h.sb.call('PUT', `${base.b}/transactions/${opening.id}`, { transaction: { category_id: id('Groceries') } });
  expect(put.status).toBe(200);
  const checking = acc('Everyday Checking').id;
  await post('/transactions', {
    transactions: [
      // A refund, a payment to the tracking mortgage (categorized: it leaves the budget), a split
      // with one line moved to savings (not spending) and one spent.
      { account_id: checking, date: today, amount: 12_340, payee_name: 'Agree Refund', category_id: id('Dining Out') },
      { account_id: checking, date: today, amount: -50_000, payee_id: acc('Lake Cabin Mortgage').transfer_payee_id, category_id: id('Cabin Mortgage') },
      {
        account_id: checking,
        date: today,
        amount: -90_000,
        payee_name: 'Agree Split',
        subtransactions: [
          { amount: -60_000, payee_id: acc('Rainy Day Savings').transfer_payee_id },
          { amount: -30_000, category_id: id('Hobbies') },
        ],
      },
    ],
  });
  r = await raw(h.sb);
}, 60_000);
afterAll(() => h.close());

/** Spending in [since, until] by the rule above, from the raw transactions. */
function spending(since: string, until: string): number {
  const onBudget = (id: string | null) => !!id && r.account.get(id)?.on_budget === true;
  let total = 0;
  for (const l of r.transactions.flatMap(rawLines)) {
    if (l.date < since || l.date > until || !onBudget(l.account_id)) continue;
    if (l.transfer_account_id && onBudget(l.transfer_account_id)) continue;
    if (l.category_id === r.rta) continue;
    total -= l.amount;
  }
  return total;
}

describe('spending, one definition', () => {
  it('cash_flow, spending_summary, the month view and the raw lines agree, month by month', async () => {
    const flow = ok(await h.call('cash_flow', { months: 6, detail: 'full' }));
    expect(flow.months).toHaveLength(6);
    for (const row of flow.months) {
      const until = row.month === thisMonth() ? today : lastDay(row.month);
      const expected = spending(row.month, until);
      const summary = ok(await h.call('spending_summary', { month: row.month }));
      const m = r.months.find((x) => x.month === row.month);
      expect(row.spending, row.month).toBe(expected);
      expect(-summary.totals.net, row.month).toBe(expected);
      expect(-m.activity, row.month).toBe(expected);
    }
  });
});

describe('money health in cash_flow', () => {
  it("savings rate to a tenth and YNAB's age of money per complete month; runway, cash and net worth change", async () => {
    // Full detail: per month, and the cash; compact gives the figures once (cash-flow.test.ts checks it on three seeds).
    const flow = ok(await h.call('cash_flow', { months: 4, detail: 'full' }));
    const tenth = (part: number, whole: number) => Math.round((part * 1000) / whole) / 10;
    let income = 0;
    let spent = 0;
    expect(flow.months.map((row: any) => row.month)).toEqual([4, 3, 2, 1].map((k) => shiftMonth(thisMonth(), -k)));
    for (const row of flow.months) {
      const m = r.months.find((x) => x.month === row.month);
      const s = spending(row.month, lastDay(row.month));
      income += m.income;
      spent += s;
      expect(row.savings_rate_pct, row.month).toBe(m.income > 0 ? tenth(m.income - s, m.income) : undefined);
      expect(row.age_of_money, row.month).toBe(m.age_of_money ?? undefined);
    }
    const cash = r.accounts.filter((a) => a.on_budget && !a.closed && a.type !== 'creditCard' && a.type !== 'lineOfCredit').reduce((s, a) => s + a.balance, 0);
    const average = Math.round(spent / 4 / 10) * 10;
    expect(flow.health).toMatchObject({
      savings_rate_pct: tenth(income - spent, income),
      age_of_money: r.months.find((x) => x.month === thisMonth()).age_of_money,
      cash: cash,
      average_spending: average,
      runway_months: tenth(cash, average * 100),
    });
    expect(flow.current_month).toMatchObject({ month: thisMonth(), partial: true, through: today });
  });
});
