/**
 * list_accounts totals its accounts by kind and gives the net worth (issue 43 item 3), over every
 * open account whatever page is shown, each figure in milliunits and in the budget's currency; the
 * sums are made here from the API's own accounts, with the kinds written out again from YNAB's
 * account list (cash and savings, credit cards, lines of credit apart from them since issue 58
 * item 5, loans and mortgages, other tracking).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

const KIND: Record<string, string> = {
  checking: 'cash_and_savings',
  savings: 'cash_and_savings',
  cash: 'cash_and_savings',
  creditCard: 'credit_cards',
  lineOfCredit: 'lines_of_credit',
  otherAsset: 'other_tracking',
  otherLiability: 'other_tracking',
};
const kindOf = (type: string) => KIND[type] ?? 'loans_and_mortgages';

describe('list_accounts totals', () => {
  it.each([
    ['Demo Household', (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toLocaleString('en-US', { minimumFractionDigits: 2 })}`],
    ['Haushalt Berlin', undefined],
  ] as const)('%s: balances by kind and the net worth, over every open account, with one row a page', async (name, usd) => {
    const budget = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === name);
    const accounts = (await h.sb.get(`/budgets/${budget.id}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted);
    const open = accounts.filter((a: any) => !a.closed);
    const res = ok(await h.call('list_accounts', { budget_id: budget.id, limit: 1 }));
    expect(res.returned).toBe(1);
    const byKind = new Map<string, { n: number; sum: number }>();
    for (const a of open) {
      const k = byKind.get(kindOf(a.type)) ?? { n: 0, sum: 0 };
      byKind.set(kindOf(a.type), { n: k.n + 1, sum: k.sum + a.balance });
    }
    expect(byKind.size).toBeGreaterThan(usd ? 2 : 0);
    // The demo's Home Equity Line is a line of credit: totalled apart, never among the credit cards.
    const loc = open.filter((a: any) => a.type === 'lineOfCredit');
    if (usd) expect(loc.map((a: any) => a.name)).toEqual(['Home Equity Line']);
    if (loc.length) expect(res.totals.lines_of_credit).toMatchObject({ count: loc.length });
    const worth = open.reduce((s: number, a: any) => s + a.balance, 0);
    expect(res.totals.count).toBe(open.length);
    expect(res.totals.closed_accounts_left_out).toBe(accounts.length - open.length);
    expect(res.totals.net_worth).toBe(worth);
    for (const [kind, { n, sum }] of byKind) {
      expect(res.totals[kind], kind).toMatchObject({ count: n, balance: sum });
      if (usd) expect(res.totals[kind].balance_formatted, kind).toBe(usd(sum));
      else expect(res.totals[kind].balance_formatted, kind).toMatch(/€/);
    }
    if (usd) expect(res.totals.net_worth_formatted).toBe(usd(worth));
    for (const kind of ['cash_and_savings', 'credit_cards', 'lines_of_credit', 'loans_and_mortgages', 'other_tracking'])
      if (!byKind.has(kind)) expect(res.totals[kind], kind).toBeUndefined();
  });
});
