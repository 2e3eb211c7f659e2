/**
 * The output contract of the tools, through a real MCP client: the API's member names, each
 * entity's id and name, money as milliunits plus formatted text, freshness, compact by default,
 * `fields` and `detail: "full"`, paging with cursors bound to their query, totals over all pages,
 * the size cap with a notice, and a JSON text mirror of the structured content.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswerText } from '../helpers/answer-text.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ flags: { maxResultChars: 20_000 } });
});
afterAll(() => h.close());

/** The JSON inside the user-data boundary of a result's text. */
function mirror(result: any): any {
  return readAnswerText(result.content[0].text).structured;
}

describe('members, identity and money', () => {
  it("keeps the API member names and each entity's id and name", async () => {
    const budgets = ok(await h.call('list_budgets'));
    expect(budgets.budgets.length).toBe(2);
    for (const b of budgets.budgets) expect(b).toMatchObject({ id: expect.any(String), name: expect.any(String) });
    const groups = ok(await h.call('list_categories'));
    expect(groups.category_groups[0]).toMatchObject({ id: expect.any(String), name: expect.any(String), categories: expect.any(Array) });
    const budget = ok(await h.call('get_budget'));
    expect(budget.budget).toMatchObject({ id: expect.any(String), name: 'Demo Household', currency: 'USD', counts: { transactions: expect.any(Number) } });
    const settings = ok(await h.call('get_budget_settings'));
    expect(settings.settings.currency_format.iso_code).toBe('USD');
  });

  it("gives money as milliunits with the budget's formatting", async () => {
    const accounts = ok(await h.call('list_accounts')).accounts;
    for (const a of accounts) {
      expect(Number.isInteger(a.balance)).toBe(true);
      expect(a.balance_formatted).toMatch(/^-?\$[\d,]+\.\d\d$/);
      expect(a).not.toHaveProperty('balance_currency');
    }
    const eur = ok(await h.call('list_budgets')).budgets.find((b: any) => b.currency === 'EUR');
    const eurAccounts = ok(await h.call('list_accounts', { budget_id: eur.id })).accounts;
    expect(eurAccounts[0].balance_formatted).toMatch(/^-?[\d.]+,\d\d€$/);
  });

  it('says how fresh an answer is and mirrors it as JSON text', async () => {
    const res = await h.call('list_payees', { limit: 3 });
    const s = ok(res);
    // Fresh: its age only (stale: true, with the reason among the notices, only when it could not be synced).
    expect(s.freshness).toEqual({ age_seconds: expect.any(Number) });
    expect(s.freshness.age_seconds).toBeLessThan(60);
    expect(mirror(res)).toEqual(s);
  });
});

describe('a stale answer', () => {
  it('says stale: true, and why once, among the notices, in API and insight answers alike', async () => {
    // Every read wants a sync (--max-staleness 0); then YNAB refuses this token for a while.
    const s = await mcpHarness({ maxStalenessMs: 0 });
    try {
      ok(await s.call('list_accounts'));
      await (await s.state.ready()).ledger(s.sb.accessToken).recordRateLimited(1800);
      for (const [tool, args] of [
        ['list_accounts', {}],
        ['spending_summary', {}],
      ] as const) {
        const res = ok(await s.call(tool, args));
        expect(res.freshness, tool).toEqual({ age_seconds: expect.any(Number), stale: true });
        const why = (res.notices as string[]).filter((n) => /next request possible/.test(n));
        expect(why, tool).toHaveLength(1);
        expect(why[0]).toMatch(/^answered from a copy synced \d+ s ago/);
      }
    } finally {
      await s.close();
    }
  });
});

describe('compact, fields and full detail', () => {
  it('is compact by default and full on request', async () => {
    const compact = ok(await h.call('list_transactions', { limit: 1 })).transactions[0];
    const full = ok(await h.call('list_transactions', { limit: 1, detail: 'full' })).transactions[0];
    expect(Object.keys(compact).length).toBeLessThan(Object.keys(full).length);
    expect(full).toHaveProperty('amount_currency');
    expect(full).toHaveProperty('deleted', false);
    expect(compact).not.toHaveProperty('deleted');
  });

  it('projects fields, always keeping id and name', async () => {
    const accounts = ok(await h.call('list_accounts', { fields: ['balance_formatted'] })).accounts;
    for (const a of accounts) expect(Object.keys(a).sort()).toEqual(['balance_formatted', 'id', 'name']);
    const groups = ok(await h.call('list_categories', { fields: ['available_formatted'] })).category_groups;
    for (const g of groups) {
      expect(Object.keys(g).sort()).toEqual(['categories', 'id', 'name']);
      for (const c of g.categories) expect(Object.keys(c).sort()).toEqual(['available_formatted', 'id', 'name']);
    }
    const err = await h.call('list_accounts', { fields: ['balance_fmt'] });
    expect(err.isError).toBe(true);
    expect(err.content[0].text).toMatch(/unknown field "balance_fmt"; available.*balance_formatted/);
  });
});

describe('paging', () => {
  it('pages with cursors, and totals cover every page', async () => {
    const args = { since_date: '2000-01-01' };
    const first = ok(await h.call('list_transactions', { ...args, limit: 200 }));
    expect(first.has_more).toBe(true);
    const seen = [...first.transactions];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = ok(await h.call('list_transactions', { ...args, limit: 200, cursor }));
      expect(page.count).toBe(first.count);
      expect(page.total).toBe(first.total);
      seen.push(...page.transactions);
      cursor = page.next_cursor;
    }
    expect(seen).toHaveLength(first.count);
    expect(new Set(seen.map((t) => t.id)).size).toBe(first.count);
    const sum = seen.reduce((s, t) => s + t.amount, 0);
    expect(first.total).toBe(sum);
    expect(first.inflow + first.outflow).toBe(sum);
  });

  it('refuses a cursor from another query', async () => {
    const page = ok(await h.call('list_transactions', { limit: 5 }));
    const res = await h.call('list_transactions', { limit: 5, cursor: page.next_cursor, type: 'unapproved' });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/cursor belongs to a different query/);
    const garbage = await h.call('list_accounts', { cursor: 'not-a-cursor' });
    expect(garbage.content[0].text).toMatch(/cursor is not one this server gave out/);
  });

  it('caps the size of an answer and says how to get the rest', async () => {
    const res = ok(await h.call('list_transactions', { since_date: '2000-01-01', limit: 500, detail: 'full' }));
    expect(res.returned).toBeLessThan(500);
    expect(res.has_more).toBe(true);
    expect(res.notices.join(' ')).toMatch(/Only \d+ of the 500 requested items fit in one answer .* cursor/);
    expect(JSON.stringify(res).length).toBeLessThanOrEqual(20_000);
    const next = ok(await h.call('list_transactions', { since_date: '2000-01-01', limit: 500, detail: 'full', cursor: res.next_cursor }));
    expect(next.transactions[0].id).not.toBe(res.transactions[0].id);
  });

  it('pages the categories inside a month', async () => {
    const m = ok(await h.call('get_month', { month: 'current', limit: 5 }));
    expect(m.month.month).toMatch(/^\d{4}-\d\d-01$/);
    expect(m.month.categories).toHaveLength(5);
    expect(m.count).toBeGreaterThan(25);
    expect(m.has_more).toBe(true);
  });
});

describe('transaction lists', () => {
  it("tell when the API's one-year default window applied", async () => {
    const withDefault = ok(await h.call('list_transactions', { limit: 1 }));
    expect(withDefault.notices.join(' ')).toMatch(/last year/);
    const explicit = ok(await h.call('list_transactions', { limit: 1, since_date: '2000-01-01' }));
    expect(explicit.notices ?? []).toEqual([]);
    expect(explicit.count).toBeGreaterThan(withDefault.count);
  });

  it('return split lines as rows by category, with the category total', async () => {
    const groups = ok(await h.call('list_categories')).category_groups;
    const groceries = groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Groceries');
    const args = { category_id: groceries.id, since_date: '2000-01-01', limit: 500 };
    const first = ok(await h.call('list_category_transactions', args));
    const rows = [...first.transactions];
    for (let cursor = first.next_cursor; cursor;) {
      const page = ok(await h.call('list_category_transactions', { ...args, cursor }));
      rows.push(...page.transactions);
      cursor = page.next_cursor;
    }
    expect(rows).toHaveLength(first.count);
    expect(rows.some((t: any) => t.type === 'subtransaction' && t.parent_transaction_id)).toBe(true);
    expect(first.total).toBe(rows.reduce((s: number, t: any) => s + t.amount, 0));
  });
});
