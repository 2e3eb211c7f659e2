/**
 * The target writes' rules (update_category with goal_* fields), held by the sandbox as YNAB
 * does and checked by this server before any request: API 1.87's rules for a category paired to a
 * loan account (its target is DEBT, a target set there without a type is DEBT, and it takes no
 * goal_target_date, goal_frequency or goal_needs_whole_amount), and 1.86's for goal_frequency and
 * goal_needs_whole_amount. The demo's "Cabin Mortgage" category is paired to its mortgage.
 * Sources: test/fixtures/ynab-api/README.md ("Rules beyond the spec"). On three seeds, each on the
 * middle of a month and the first of one (this process's clock, which the server and the sandbox share).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addMonths } from '../../src/api/dates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, type Raw } from '../insights/raw.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
const CASES = ['target-rules', 'target-rules-b', 'target-rules-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));

describe.each(CASES)('seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const lines: string[] = [];
  const writes = () => lines.filter((l) => /sandbox: PATCH .*\/categories\//.test(l)).length;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed, verbose: true, log: (l: string) => lines.push(l) } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  const category = (name: string) => r.categories.find((c: any) => c.name === name);

  describe('the sandbox, as YNAB (API 1.87)', () => {
    it("a loan's category refuses a date, a frequency and goal_needs_whole_amount; a target set there without a type is DEBT", async () => {
      const loan = category('Cabin Mortgage');
      expect(loan.goal_type).toBe('DEBT');
      for (const body of [{ goal_target_date: '2030-01-01' }, { goal_target: 500_000, goal_frequency: 'monthly' }, { goal_needs_whole_amount: true }]) {
        const res = await h.sb.call('PATCH', `${r.b}/categories/${loan.id}`, { category: body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.detail).toMatch(/not supported for a category paired to a loan account/);
      }
      expect((await h.sb.call('PATCH', `${r.b}/categories/${loan.id}`, { category: { goal_target: null } })).body.data.category.goal_type).toBeNull();
      const set = await h.sb.call('PATCH', `${r.b}/categories/${loan.id}`, { category: { goal_target: 1_150_000 } });
      expect(set.body.data.category).toMatchObject({ goal_type: 'DEBT', goal_target: 1_150_000, goal_needs_whole_amount: null });
      // Another category still gets a NEED target.
      const other = category('Haircuts');
      await h.sb.call('PATCH', `${r.b}/categories/${other.id}`, { category: { goal_target: null } });
      expect((await h.sb.call('PATCH', `${r.b}/categories/${other.id}`, { category: { goal_target: 30_000 } })).body.data.category.goal_type).toBe('NEED');
    });
  });

  describe('update_category refuses before any request', () => {
    it.each([
      ['Cabin Mortgage', { goal_target_date: '2030-01-01' }, /goal_target_date is not supported for "Cabin Mortgage": its target is DEBT/],
      ['Cabin Mortgage', { goal_target: 1200, goal_frequency: 'monthly' }, /goal_frequency is not supported for "Cabin Mortgage": its target is DEBT/],
      ['Cabin Mortgage', { goal_needs_whole_amount: false }, /goal_needs_whole_amount is not supported for "Cabin Mortgage"/],
      ['Groceries', { goal_frequency: 'weekly' }, /goal_frequency needs goal_target/],
      ['Groceries', { goal_target: 100, goal_frequency: 'weekly', goal_target_date: '2030-01-01' }, /cannot be sent together/],
      ['Citi Store Card', { goal_target: 100, goal_frequency: 'monthly' }, /credit card payment category/],
      ['Internet', { goal_needs_whole_amount: true }, /applies only to NEED targets; "Internet"'s target is MF/],
    ] as const)('%s %j', async (name, fields, message) => {
      const before = writes();
      const res = await h.call('update_category', { category_id: name, ...fields });
      expect(res.isError, res.content[0].text).toBe(true);
      expect(res.content[0].text).toMatch(message);
      expect(res.content[0].text).toMatch(/Nothing was sent/);
      expect(writes()).toBe(before);
    });

    it("the loan category's monthly payment alone is changed", async () => {
      const before = writes();
      const res = ok(await h.call('update_category', { category_id: 'Cabin Mortgage', goal_target: 1200 }));
      expect(JSON.stringify(res)).toMatch(/DEBT/);
      // The request count above sees requests: this one was sent.
      expect(writes()).toBe(before + 1);
    });
  });
});
