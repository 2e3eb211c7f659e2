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
    const flow = ok(await h.call('cash_flow', { months: 6 }));
    expect(flow.months).toHaveLength(6);
    for (const row of flow.months) {
      const until = row.month === thisMonth() ? today : lastDay(row.month);
      const expected = spending(row.month, until);
      const summary = ok(await h.call('spending_summary', { month: row.month }));
      const m = r.months.find((x) => x.month === row.month);
      expect(row.spending_milliunits, row.month).toBe(expected);
      expect(-summary.totals.net_milliunits, row.month).toBe(expected);
      expect(-m.activity, row.month).toBe(expected);
    }
  });
});

describe('money health in cash_flow', () => {
  it("savings rate and YNAB's age of money per month; runway, cash and net worth change", async () => {
    // Full detail: per month, and the cash and assumptions; compact gives the four figures once.
    const flow = ok(await h.call('cash_flow', { months: 4, detail: 'full' }));
    let income = 0;
    let spent = 0;
    for (const row of flow.months) {
      const m = r.months.find((x) => x.month === row.month);
      const until = row.month === thisMonth() ? today : lastDay(row.month);
      const s = spending(row.month, until);
      income += m.income;
      spent += s;
      expect(row.savings_rate_pct, row.month).toBe(m.income > 0 ? Math.round(((m.income - s) * 100) / m.income) : undefined);
      expect(row.age_of_money, row.month).toBe(m.age_of_money ?? undefined);
    }
    const cash = r.accounts.filter((a) => a.on_budget && !a.closed && a.type !== 'creditCard' && a.type !== 'lineOfCredit').reduce((s, a) => s + a.balance, 0);
    const full = flow.months.slice(0, 3).map((row: any) => spending(row.month, lastDay(row.month)));
    const worth = (until: string) => r.transactions.filter((t) => t.date <= until).reduce((s, t) => s + t.amount, 0);
    expect(flow.health).toMatchObject({
      savings_rate_pct: Math.round(((income - spent) * 100) / income),
      age_of_money: r.months.find((x) => x.month === thisMonth()).age_of_money,
      cash_milliunits: cash,
      runway_months: Math.round((cash * 10 * full.length) / full.reduce((a: number, b: number) => a + b, 0)) / 10,
      net_worth_change_milliunits: worth(today) - worth(lastDay(shiftMonth(thisMonth(), -3))),
    });
    expect(flow.health.assumes).toMatch(/runway/);
    const compact = await h.call('cash_flow', { months: 4 });
    const { cash_milliunits: _cash, cash_formatted: _f, assumes: _a, net_worth_change_formatted: _n, ...four } = flow.health;
    expect(compact.structuredContent.health).toEqual(four);
    expect(Buffer.byteLength(compact.content[0].text)).toBeLessThanOrEqual(2048);
  });
});
