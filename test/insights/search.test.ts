/**
 * search_transactions through a real MCP client: text in payee, memo, category and account
 * names ignoring case and accents; the size of amounts in currency units and their direction;
 * dates; account, category and payee by id or name; cleared, approved and flag; split lines on
 * their own. Count and totals cover every match and paging returns each match once; expected
 * matches are computed in the test from the API's raw transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchingTransactions } from '../../src/insights/core/filter.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, todayUtc, usd, type Detail, type Raw, type RawLine } from './raw.js';

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
        {
          account_id: 'Everyday Checking',
          date: today,
          amount: -4.5,
          payee_name: `Café Crème ${unique}`,
          memo: 'Croissant au beurre',
          category_id: 'Coffee',
          flag_color: 'purple',
          cleared: 'uncleared',
          approved: false,
        },
        {
          account_id: 'Visa Rewards',
          date: today,
          amount: -123.45,
          payee_name: `Hardware Haus ${unique}`,
          category_id: 'Home Maintenance',
          cleared: 'cleared',
          approved: true,
        },
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
async function everything(args: Record<string, unknown>, detail: Detail = 'compact'): Promise<{ first: any; rows: any[]; detail: Detail }> {
  const asked = { ...args, limit: 7, ...(detail === 'full' ? { detail } : {}) };
  const first = ok(await h.call('search_transactions', asked));
  const rows = [...first.transactions];
  let page = first;
  while (page.has_more) {
    page = ok(await h.call('search_transactions', { ...asked, cursor: page.next_cursor }));
    rows.push(...page.transactions);
  }
  return { first, rows, detail };
}

/**
 * A line as a row: in compact detail its ids, date, names, memo, cleared and approved only when
 * not the usual, and flag; in full detail every field (fullRow). (The category name is checked
 * where the line has a category.)
 */
function expectRow(row: any, l: RawLine, detail: Detail) {
  const { category_name, ...rest } = row;
  if (l.category_id) expect(category_name).toBe(r.category.get(l.category_id)?.name);
  if (detail === 'full') return expect(rest).toEqual(fullRow(l));
  expect(rest).toEqual({
    id: l.id,
    transaction_id: l.id === l.t.id ? undefined : l.t.id,
    date: l.date,
    ...quotable({ amount: l.amount }),
    payee_name: nameOf(l).payee,
    account_name: nameOf(l).account,
    memo: l.memo ?? undefined,
    cleared: l.t.cleared !== 'cleared' ? l.t.cleared : undefined,
    approved: l.t.approved ? undefined : false,
    flag_color: l.t.flag_color || undefined,
  });
}

/**
 * A line in full detail: every field the API gives its transaction (the amount as milliunits and
 * dollars, no float companion), the line's own where it is a split's line, and the split's id.
 */
function fullRow(l: RawLine) {
  const { amount: _a, amount_formatted: _f, amount_currency: _c, subtransactions, category_name: _n, ...t } = l.t;
  const sub = l.id === l.t.id ? undefined : subtransactions.find((x: any) => x.id === l.id);
  return {
    ...t,
    id: l.id,
    transaction_id: sub ? l.t.id : null,
    amount: l.amount,
    amount_formatted: usd(l.amount),
    memo: l.memo ?? null,
    payee_id: l.payee_id ?? null,
    payee_name: nameOf(l).payee ?? null,
    category_id: l.category_id ?? null,
    transfer_account_id: l.transfer_account_id ?? null,
    transfer_transaction_id: (sub ?? l.t).transfer_transaction_id ?? null,
  };
}

/** Figures as the answer vocabulary writes them: each under its name, formatted beside it (rows and totals alike). */
function quotable(figures: Record<string, number>): Record<string, number | string> {
  return Object.fromEntries(
    Object.entries(figures).flatMap(([k, v]) => [
      [k, v],
      [`${k}_formatted`, usd(v)],
    ]),
  );
}

function expectSame(found: { first: any; rows: any[]; detail: Detail }, expected: RawLine[]) {
  expect(found.first.count).toBe(expected.length);
  expect(found.rows.map((x) => x.id).sort()).toEqual(expected.map((l) => l.id).sort());
  const lines = new Map(expected.map((l) => [l.id, l]));
  for (const row of found.rows) expectRow(row, lines.get(row.id)!, found.detail);
  const total = expected.reduce((s, l) => s + l.amount, 0);
  const inflow = expected.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
  // Totals with their formatted text; compact detail gives outflow and inflow only when both are there.
  const outflow = total - inflow;
  const flows = found.detail === 'full' || (outflow !== 0 && inflow !== 0) ? quotable({ outflow, inflow }) : {};
  const totals = { ...quotable({ total }), ...flows };
  // What a search left in tracking accounts (notices) is held by search-closed.test.ts.
  const {
    transactions: _t,
    count: _c,
    returned: _r,
    has_more: _m,
    next_cursor: _n,
    budget: _b,
    freshness: _f,
    data_notice: _d,
    notices: _x,
    ...rest
  } = found.first;
  expect(rest).toEqual(totals);
  // Newest first.
  const dates = found.rows.map((x) => x.date);
  expect(dates).toEqual([...dates].sort().reverse());
}

describe('search_transactions', () => {
  it('matches text in payee, memo, category and account names, ignoring case and accents', async () => {
    const row = {
      payee_name: `Café Crème ${unique}`,
      amount: -4500,
      amount_formatted: '-$4.50',
      category_name: 'Coffee',
      account_name: 'Everyday Checking',
      memo: 'Croissant au beurre',
      cleared: 'uncleared',
      approved: false,
      flag_color: 'purple',
    };
    const cafe = await everything({ query: `cafe creme ${unique}` });
    expect(cafe.rows).toHaveLength(1);
    expect(cafe.rows[0]).toMatchObject(row);
    expect((await everything({ query: `cafe creme ${unique}` }, 'full')).rows[0]).toMatchObject({ ...row, amount_formatted: '-$4.50' });
    expect((await everything({ query: 'CROISSANT AU' })).rows.map((x) => x.payee_name)).toEqual([`Café Crème ${unique}`]);
    for (const q of ['coffee', 'visa rew', 'groceries']) {
      const expected = all().filter((l) => {
        const n = nameOf(l);
        return [n.payee, n.category, n.account, l.memo, l.t.subtransactions?.length ? l.t.memo : null].some((s) => fold(s).includes(q));
      });
      for (const detail of ['compact', 'full'] as const) expectSame(await everything({ query: q }, detail), expected);
    }
  });

  it('filters by amount size and direction, dates, account, category and payee by name, status and flag', async () => {
    const since = `${todayUtc().slice(0, 7)}-01`;
    const visa = r.accounts.find((a) => a.name === 'Visa Rewards');
    const groceries = r.categories.find((c) => c.name === 'Groceries');
    const cases: [Record<string, unknown>, (l: RawLine) => boolean][] = [
      [{ min_amount: 100, direction: 'outflow', since_date: since }, (l) => l.amount <= -100_000 && l.date >= since],
      [{ max_amount: 5, direction: 'inflow' }, (l) => l.amount > 0 && l.amount <= 5000],
      [
        { min_amount: 20, max_amount: 50, account_id: 'visa rewards' },
        (l) => Math.abs(l.amount) >= 20_000 && Math.abs(l.amount) <= 50_000 && l.account_id === visa.id,
      ],
      [{ category_id: 'Groceries', since_date: since, until_date: todayUtc() }, (l) => l.category_id === groceries.id && l.date >= since],
      [{ payee_id: `Hardware Haus ${unique}` }, (l) => l.payee_id === r.payees.find((p) => p.name === `Hardware Haus ${unique}`).id],
      [{ approved: false }, (l) => !l.t.approved],
      [{ cleared: 'uncleared', since_date: since }, (l) => l.t.cleared === 'uncleared' && l.date >= since],
      [{ flag_color: 'purple' }, (l) => l.t.flag_color === 'purple'],
    ];
    for (const [args, match] of cases) for (const detail of ['compact', 'full'] as const) expectSame(await everything(args, detail), all().filter(match));
  });

  it('finds split lines on their own, with their transaction', async () => {
    const split = r.transactions.find((t) => t.payee_name === `Market Split ${unique}`);
    const found = await everything({ query: 'soap' });
    expect(found.rows).toHaveLength(1);
    const soap = split.subtransactions.find((x: any) => x.memo === 'soap');
    expect(found.rows[0]).toMatchObject({
      id: soap.id,
      transaction_id: split.id,
      amount: -15_000,
      amount_formatted: '-$15.00',
      category_name: 'Household Supplies',
    });
    const whole = await everything({ payee_id: `Market Split ${unique}` });
    expect(whole.rows.map((x) => x.amount).sort((a, b) => a - b)).toEqual([-45_000, -15_000]);
    expect(whole.first.total).toBe(-60_000);
    // The same filter, as a tool acting on matching transactions sees it: each transaction once.
    const replica = (await h.state.service()).replicas.peek(r.budget.id)!;
    const view = BudgetView.of(replica);
    expect(matchingTransactions(view, { query: 'soap' }, 2)).toEqual({ ids: [split.id], lines: 1 });
    const payee = r.payees.find((p) => p.name === `Market Split ${unique}`).id;
    expect(matchingTransactions(view, { payee_id: payee }, 2).ids).toEqual([split.id]);
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
      [{ payee_id: 'Nobody At All' }, /payee_id "Nobody At All": no payee has that id or name\. Searched/],
      [{ cursor: 'bogus' }, /cursor is not one this server gave out/],
      // An id of nothing in this budget (a category's id given as an account's, or none at all): refused, not an empty answer.
      [{ account_id: r.categories[0].id }, /account_id "[0-9a-f-]{36}": no account of this budget has that id/],
      [{ category_id: '00000000-0000-4000-8000-000000000000' }, /category_id "0{8}-0000-4000-8000-0{12}": no category of this budget has that id/],
    ];
    for (const [args, message] of cases) {
      const res = await h.call('search_transactions', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
  });
});
