/**
 * Errors say what is wrong and how to fix it, through a real MCP client against the sandbox:
 *  - an impossible date names the problem ("2026-02-30 is not a date: February 2026 has 28 days");
 *  - an amount written as text with a decimal comma or a currency sign says how to write it
 *    ("give 12.50 as a number");
 *  - a refusal about the budget's state (Ready to Assign short, a month the budget does not have
 *    yet, nothing to undo) is a plain tool error in the domain's words: "Input validation error"
 *    is only for arguments that fail their schema;
 *  - "Closest:" lists only plausible names, at most 3, or none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterOutsideChange, mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, usd, type Raw } from '../insights/raw.js';

let h: McpHarness;
let r: Raw;
beforeAll(async () => {
  h = await mcpHarness();
  r = await raw(h.sb);
});
afterAll(() => h.close());

const SCHEMA = /^Input validation error: Invalid arguments for tool /;

/** The text of a tool error (failing the test when the call answered). */
async function errorOf(tool: string, args: Record<string, unknown>): Promise<string> {
  const res = await h.call(tool, args);
  expect(res.isError, `${tool} ${JSON.stringify(args)}: ${res.content?.[0]?.text}`).toBe(true);
  return res.content[0].text as string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

describe('an impossible date', () => {
  it.each(['2026-02-30', '2028-02-30', '2026-04-31'])('%s names the problem: how many days its month has', async (date) => {
    const [y, m] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
    const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const text = await errorOf('list_transactions', { budget_id: r.budget.id, since_date: date });
    expect(text).toMatch(SCHEMA);
    expect(text).toContain(`since_date: ${date} is not a date: ${MONTHS[m - 1]} ${y} has ${days} days`);
  });

  it('and a date not written YYYY-MM-DD says how to write it', async () => {
    expect(await errorOf('list_transactions', { budget_id: r.budget.id, since_date: '2026/3/7' })).toContain(
      'since_date: "2026/3/7" is not a date: write it YYYY-MM-DD (2026-03-07)',
    );
    expect(await errorOf('list_transactions', { budget_id: r.budget.id, until_date: '2026-13-01' })).toContain(
      'until_date: 2026-13-01 is not a date: months run 01 to 12',
    );
  });
});

describe('an amount written as text', () => {
  const checking = () => r.accounts.find((a: any) => a.name === 'Everyday Checking' || a.type === 'checking').id;
  // A transaction's amount has a sign: the answer gives both signed forms (issue 57, item 5).
  it.each([
    ['12,50', '-12.50 or 12.50'],
    ['€12.50', '-12.50 or 12.50'],
    ['$12.50', '-12.50 or 12.50'],
    ['1.234,56 EUR', '-1234.56 or 1234.56'],
    ['-12,5', '-12.5'],
  ])('%s says how to write it: give %s as a number, and nothing is written', async (given, figure) => {
    const before = (await h.sb.get(`${r.b}/transactions?since_date=1990-01-01`)).body.data.transactions.length;
    const text = await errorOf('create_transactions', { budget_id: r.budget.id, transactions: [{ account_id: checking(), date: thisMonth(), amount: given }] });
    expect(text).toMatch(SCHEMA);
    expect(text).toContain(`transactions.0.amount: give ${figure} as a number, not the text ${JSON.stringify(given)}`);
    expect((await h.sb.get(`${r.b}/transactions?since_date=1990-01-01`)).body.data.transactions.length).toBe(before);
  });

  it('a figure that could be either says both', async () => {
    const text = await errorOf('create_transactions', {
      budget_id: r.budget.id,
      transactions: [{ account_id: checking(), date: thisMonth(), amount: '1,234' }],
    });
    expect(text).toContain('give 1234 or 1.234, whichever it means, as a number');
  });
});

describe("a refusal about the budget's state", () => {
  it('a month the budget does not have yet: a plain tool error naming the months it has', async () => {
    const months = r.months.map((m: any) => m.month).sort();
    const later = shiftMonth(months.at(-1), 24);
    const text = await errorOf('move_money', { budget_id: r.budget.id, from_category_id: 'Dining Out', to_category_id: 'Groceries', amount: 5, month: later });
    expect(text).not.toMatch(/Input validation error|Invalid arguments/);
    expect(text).toBe(`month ${later} is not in this budget (its months run from ${months[0]} to ${months.at(-1)}). Nothing was changed.`);
  });

  it('nothing to undo: a plain tool error', async () => {
    const text = await errorOf('undo_change', { budget_id: r.budget.id, change_id: 'chg_nothing_here' });
    expect(text).not.toMatch(/Input validation error|Invalid arguments/);
    expect(text).toMatch(/^change_id chg_nothing_here: no such change in this budget's undo journal .*list_recent_changes lists them\. Nothing was changed\.$/);
  });

  it("Ready to Assign short: fund_targets says so in the domain's words (it funds in order what money there is), and nothing is assigned", async () => {
    // Ready to Assign down to nothing: everything it held assigned to the Rainy Day Fund.
    const month = thisMonth();
    const now = (await h.sb.get(`${r.b}/months/${month}`)).body.data.month;
    const rainy = now.categories.find((c: any) => c.name === 'Rainy Day Fund');
    if (now.to_be_budgeted > 0) {
      const moved = await h.sb.call('PATCH', `${r.b}/months/${month}/categories/${rainy.id}`, { category: { budgeted: rainy.budgeted + now.to_be_budgeted } });
      expect(moved.status).toBe(200);
      await afterOutsideChange();
    }
    const before = (await h.sb.get(`${r.b}/months/${month}`)).body.data.month;
    const res = await h.call('fund_targets', { budget_id: r.budget.id, option: 'underfunded' });
    const text = JSON.stringify(res.structuredContent ?? res.content);
    expect(text).not.toMatch(/Input validation error|Invalid arguments/);
    expect(text).toContain(`Nothing was changed: Ready to Assign (${usd(before.to_be_budgeted)}) funds none of the`);
    const after = (await h.sb.get(`${r.b}/months/${month}`)).body.data.month;
    expect(after.categories.map((c: any) => c.budgeted)).toEqual(before.categories.map((c: any) => c.budgeted));
  });

  it('arguments that fail their schema still say "Input validation error"', async () => {
    expect(
      await errorOf('move_money', { budget_id: r.budget.id, from_category_id: 'Dining Out', to_category_id: 'Groceries', amount: 5, month: '2026-02' }),
    ).toMatch(SCHEMA);
  });
});

describe('"Closest:"', () => {
  const names = (text: string) => [...(/Closest: (.*?)\. Searched/.exec(text)?.[1] ?? '').matchAll(/"([^"]+)" \(id /g)].map((m) => m[1]);

  it('lists only plausible names, at most 3: "Dinning Out" → Dining Out, not Dentist or Internet', async () => {
    const text = await errorOf('spending_summary', { budget_id: r.budget.id, category_id: 'Dinning Out' });
    expect(text).not.toMatch(/Input validation error/);
    const listed = names(text);
    expect(listed).toContain('Dining Out');
    expect(listed.length).toBeLessThanOrEqual(3);
    for (const unrelated of ['Dentist', 'Camping Gear', 'Rainy Day Fund', 'Internet']) expect(listed).not.toContain(unrelated);
    // Every listed name is one the budget has.
    for (const n of listed) expect(r.categories.map((c: any) => c.name)).toContain(n);
  });

  it('lists none when nothing is near', async () => {
    const text = await errorOf('spending_summary', { budget_id: r.budget.id, category_id: 'Zyxwv Qqq' });
    expect(text).toMatch(/^category_id "Zyxwv Qqq": no category has that id or name\. Searched the budget /);
    expect(text).not.toContain('Closest');
  });
});

/** `text` matched literally in a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
