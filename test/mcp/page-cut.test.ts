/**
 * A page cut short by the size cap says so (issue 43 item 5): `limit: 500` over the demo budget's
 * transactions returns fewer rows than asked, and the answer says how many fit, why, and where the
 * rest continue; the next page starts where this one stopped, so nothing is lost between them.
 * The number of rows that match is counted here from the API's own list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budgetId: string;
let matching: number;
const since = '2000-01-01';

beforeAll(async () => {
  h = await mcpHarness();
  budgetId = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household').id;
  matching = (await h.sb.get(`/budgets/${budgetId}/transactions?since_date=${since}`)).body.data.transactions.filter((t: any) => !t.deleted).length;
});
afterAll(() => h.close());

describe('a page the size cap cuts short', () => {
  it.each([
    ['list_transactions', {}],
    ['search_transactions', { detail: 'full' }],
  ] as const)('%s with limit 500 says how many fit and where the rest continue', async (tool, extra) => {
    const res = ok(await h.call(tool, { budget_id: budgetId, since_date: since, limit: 500, ...extra }));
    expect(matching).toBeGreaterThan(500);
    const asked = 500;
    expect(res.returned).toBeLessThan(asked);
    expect(res.returned).toBeGreaterThan(0);
    expect(res.transactions).toHaveLength(res.returned);
    expect(res.has_more).toBe(true);
    const notice = (res.notices as string[]).find((n) => n.includes('size limit'));
    expect(notice).toMatch(new RegExp(`^Only ${res.returned} of the ${asked} requested items fit in one answer \\(size limit\\)`));
    expect(notice).toContain(res.next_cursor);
    // The rest continue right after: the two pages share no row.
    const next = ok(await h.call(tool, { budget_id: budgetId, since_date: since, limit: 500, cursor: res.next_cursor, ...extra }));
    const ids = new Set(res.transactions.map((t: any) => t.id));
    expect(next.transactions.some((t: any) => ids.has(t.id))).toBe(false);
    expect(next.returned).toBeGreaterThan(0);
  });

  it('a page that fits says nothing about the size cap', async () => {
    const res = ok(await h.call('list_transactions', { budget_id: budgetId, since_date: since, limit: 5 }));
    expect(res.returned).toBe(5);
    expect((res.notices ?? []).join(' ')).not.toContain('size limit');
  });
});
