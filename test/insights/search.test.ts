/**
 * search_transactions through a real MCP client: text in payee, memo, category and account
 * names ignoring case and accents; the size of amounts in currency units and their direction;
 * dates; account, category and payee by id or name; cleared, approved and flag; split lines on
 * their own. Count and totals cover every match and paging returns each match once; expected
 * matches are computed in the test from the API's raw transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchingTransactions } from '../../src/insights/filter.js';
import { BudgetView } from '../../src/insights/view.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, todayUtc, usd, type Raw, type RawLine } from './raw.js';

let h: McpHarness;
let r: Raw;
const unique = `${Date.now().toString(36)}`;

beforeAll(async () => {
  h = await mcpHarness();
  const today = todayUtc();
  // A few transactions with accents, a memo, a flag, a split and an uncleared one, made through the tools.
  ok(
    await h.call('create_transactions', {
      transactions: [
        { account_id: 'Everyday Checking', date: today, amount: -4.5, payee_name: `Café Crème ${unique}`, memo: 'Croissant au beurre', category_id: 'Coffee', flag_color: 'purple', cleared: 'uncleared', approved: false },
        { account_id: 'Visa Rewards', date: today, amount: -123.45, payee_name: `Hardware Haus ${unique}`, category_id: 'Home Maintenance', cleared: 'cleared', approved: true },
        {
          account_id: 'Everyday Checking',
          date: today,
          amount: -60,
          payee_name: `Market Split ${unique}`,
          cleared: 'cleared',
          approved: true,
          subtransactions: [
            { amount: -45, category_id: 'Groceries', memo: 'weekly shop' },
            { amount: -15, category_id: 'Household Supplies', memo: 'soap' },
          ],
        },
      ],
    }),
  );
  r = await raw(h.sb);
});
afterAll(() => h.close());

const fold = (s: string | null | undefined) => (s ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const onBudget = (l: RawLine) => r.account.get(l.account_id)?.on_budget === true;
const all = () => r.transactions.flatMap(rawLines).filter(onBudget);
const nameOf = (l: RawLine) => ({
  payee: r.payees.find((p) => p.id === l.payee_id)?.name,
  category: l.category_id ? r.category.get(l.category_id)?.name : l.transfer_account_id || l.t.payee_name === 'Starting Balance' ? undefined : 'Uncategorized',
  account: r.account.get(l.account_id)?.name,
});

/** Every page of a search, and its first answer. */
async function everything(args: Record<string, unknown>): Promise<{ first: any; rows: any[] }> {
  const first = ok(await h.call('search_transactions', { ...args, limit: 7 }));
  const rows = [...first.transactions];
  let page = first;
  while (page.has_more) {
    page = ok(await h.call('search_transactions', { ...args, limit: 7, cursor: page.next_cursor }));
    rows.push(...page.transactions);
  }
  return { first, rows };
}

function expectSame(found: { first: any; rows: any[] }, expected: RawLine[]) {
  expect(found.first.count).toBe(expected.length);
  expect(found.rows.map((x) => x.id).sort()).toEqual(expected.map((l) => l.id).sort());
  const total = expected.reduce((s, l) => s + l.amount, 0);
  const inflow = expected.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
  expect(found.first).toMatchObject({ total_milliunits: total, total_formatted: usd(total), inflow_milliunits: inflow, outflow_milliunits: total - inflow, outflow_formatted: usd(total - inflow) });
  // Newest first.
  const dates = found.rows.map((x) => x.date);
  expect(dates).toEqual([...dates].sort().reverse());
}

describe('search_transactions', () => {
  it('matches text in payee, memo, category and account names, ignoring case and accents', async () => {
    const cafe = await everything({ query: `cafe creme ${unique}` });
    expect(cafe.rows).toHaveLength(1);
    expect(cafe.rows[0]).toMatchObject({ payee_name: `Café Crème ${unique}`, amount_milliunits: -4500, amount_formatted: '-$4.50', category_name: 'Coffee', account_name: 'Everyday Checking', memo: 'Croissant au beurre', cleared: 'uncleared', approved: false, flag_color: 'purple' });
    expect((await everything({ query: 'CROISSANT AU' })).rows.map((x) => x.payee_name)).toEqual([`Café Crème ${unique}`]);
    for (const q of ['coffee', 'visa rew', 'groceries']) {
      const expected = all().filter((l) => {
        const n = nameOf(l);
        return [n.payee, n.category, n.account, l.memo, l.t.subtransactions?.length ? l.t.memo : null].some((s) => fold(s).includes(q));
      });
      expectSame(await everything({ query: q }), expected);
    }
  });

  it('filters by amount size and direction, dates, account, category and payee by name, status and flag', async () => {
    const since = `${todayUtc().slice(0, 7)}-01`;
    const visa = r.accounts.find((a) => a.name === 'Visa Rewards');
    const groceries = r.categories.find((c) => c.name === 'Groceries');
    const cases: [Record<string, unknown>, (l: RawLine) => boolean][] = [
      [{ min_amount: 100, direction: 'outflow', since_date: since }, (l) => l.amount <= -100_000 && l.date >= since],
      [{ max_amount: 5, direction: 'inflow' }, (l) => l.amount > 0 && l.amount <= 5000],
      [{ min_amount: 20, max_amount: 50, account_id: 'visa rewards' }, (l) => Math.abs(l.amount) >= 20_000 && Math.abs(l.amount) <= 50_000 && l.account_id === visa.id],
      [{ category_id: 'Groceries', since_date: since, until_date: todayUtc() }, (l) => l.category_id === groceries.id && l.date >= since],
      [{ payee_id: `Hardware Haus ${unique}` }, (l) => l.payee_id === r.payees.find((p) => p.name === `Hardware Haus ${unique}`).id],
      [{ approved: false }, (l) => !l.t.approved],
      [{ cleared: 'uncleared', since_date: since }, (l) => l.t.cleared === 'uncleared' && l.date >= since],
      [{ flag_color: 'purple' }, (l) => l.t.flag_color === 'purple'],
    ];
    for (const [args, match] of cases) expectSame(await everything(args), all().filter(match));
  });

  it('finds split lines on their own, with their transaction', async () => {
    const split = r.transactions.find((t) => t.payee_name === `Market Split ${unique}`);
    const found = await everything({ query: 'soap' });
    expect(found.rows).toHaveLength(1);
    const soap = split.subtransactions.find((x: any) => x.memo === 'soap');
    expect(found.rows[0]).toMatchObject({ id: soap.id, transaction_id: split.id, amount_milliunits: -15_000, category_name: 'Household Supplies' });
    const whole = await everything({ payee_id: `Market Split ${unique}` });
    expect(whole.rows.map((x) => x.amount_milliunits).sort((a, b) => a - b)).toEqual([-45_000, -15_000]);
    expect(whole.first.total_milliunits).toBe(-60_000);
    // The same filter, as a tool acting on matching transactions sees it: each transaction once.
    const replica = (await h.state.service()).replicas.peek(r.budget.id)!;
    const view = BudgetView.of(replica);
    expect(matchingTransactions(view, { query: 'soap' }, 2)).toEqual([split.id]);
    const payee = r.payees.find((p) => p.name === `Market Split ${unique}`).id;
    expect(matchingTransactions(view, { payee_id: payee }, 2)).toEqual([split.id]);
  });

  it('leaves tracking accounts out unless asked, and refuses bad filters', async () => {
    const tracking = r.accounts.filter((a) => !a.on_budget).map((a) => a.id);
    const everywhere = ok(await h.call('search_transactions', { include_off_budget: true, limit: 1 }));
    const budgetOnly = ok(await h.call('search_transactions', { limit: 1 }));
    const trackingLines = r.transactions.flatMap(rawLines).filter((l) => tracking.includes(l.account_id));
    expect(trackingLines.length).toBeGreaterThan(0);
    expect(everywhere.count - budgetOnly.count).toBe(trackingLines.length);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ min_amount: 1.234 }, /min_amount: amount 1.234 has 3 decimal places; at most 2/],
      [{ min_amount: 50, max_amount: 10 }, /max_amount 10 is below min_amount 50/],
      [{ since_date: '2026-05-01', until_date: '2026-04-30' }, /until_date 2026-04-30 is before since_date 2026-05-01/],
      [{ payee_id: 'Nobody At All' }, /payee_id "Nobody At All": no payee has that id or name\. Closest: /],
      [{ cursor: 'bogus' }, /cursor is not one this server gave out/],
    ];
    for (const [args, message] of cases) {
      const res = await h.call('search_transactions', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
  });
});
