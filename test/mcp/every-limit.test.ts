/**
 * No answer fails for its size: every tool that takes `limit`, found in tools/list (so a new one
 * is covered without naming it), asked through the real MCP client for its largest page on the
 * demo budget, answers within the size limit with what fits, and says how to get the rest: a
 * cursor that continues exactly where the page ended, or how many are left. Run twice: with the
 * default limit, and with a small one (8,000 characters) that every long list is over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);

/** Required arguments a tool with `limit` may take, by name: a name from the demo budget. */
const REQUIRED: Record<string, unknown> = {
  account_id: 'Everyday Checking',
  category_id: 'Groceries',
  month: 'current',
};

/** The list in an answer: the first array member (rows grouped by account count as their rows). */
function rowsOf(body: Record<string, unknown>): unknown[] {
  // The answer's lines, not its notices; a month's rows are its categories (get_month: month.categories).
  for (const [k, v] of Object.entries(body)) {
    if (k === 'notices') continue;
    if (Array.isArray(v)) return v;
    if (v && typeof v === 'object' && Object.values(v).every(Array.isArray)) return Object.values(v).flat() as unknown[];
    if (v && typeof v === 'object') {
      const nested = Object.values(v).find((x) => Array.isArray(x) && x.some((y) => y && typeof y === 'object'));
      if (nested) return nested as unknown[];
    }
  }
  return [];
}

for (const maxResultChars of [undefined, 8000]) {
  describe(`every tool with a limit, size limit ${maxResultChars ?? 'default'}`, () => {
    let h: McpHarness;
    let tools: { name: string; inputSchema: any }[];
    let payee: string;

    beforeAll(async () => {
      h = await mcpHarness({ flags: maxResultChars ? { maxResultChars } : {} });
      tools = (await h.client.listTools()).tools.filter((t: any) => t.inputSchema.properties?.limit);
      payee = ok(await h.call('list_payees', { limit: 1, fields: ['id'] })).payees[0].id;
      // Changes for the undo journal's list: 40 creates, each its own change.
      for (let i = 0; i < 40; i++)
        ok(
          await h.call('create_transactions', {
            allow_duplicate: true,
            transactions: [{ account_id: 'Everyday Checking', date: today, amount: -1 - i, payee_name: `Limit Shop ${i}`, memo: 'x'.repeat(150) }],
          }),
        );
    }, 120_000);
    afterAll(() => h?.close());

    it('finds the tools that take limit (the insights and the journal among them)', () => {
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['search_transactions', 'review_transactions', 'upcoming', 'list_transactions', 'list_recent_changes']),
      );
    });

    it('answers each with its largest page, or what fits of it and how to get the rest', async () => {
      const failed: string[] = [];
      for (const t of tools) {
        const args: Record<string, unknown> = { limit: t.inputSchema.properties.limit.maximum };
        for (const name of t.inputSchema.required ?? []) args[name] = name === 'payee_id' ? payee : REQUIRED[name];
        const res = await h.call(t.name, args);
        if (res.isError) {
          failed.push(`${t.name}: ${res.content[0].text.slice(0, 200)}`);
          continue;
        }
        const body = res.structuredContent;
        expect(res.content[0].text.length, t.name).toBeLessThanOrEqual((maxResultChars ?? 60_000) + 1000);
        const rows = rowsOf(body);
        if (!body.has_more) continue;
        // What is left is said: a cursor (that continues where this page ended), or a count.
        if (typeof body.next_cursor === 'string') {
          const next = await h.call(t.name, { ...args, cursor: body.next_cursor });
          expect(next.isError, `${t.name} next page: ${next.content[0].text.slice(0, 200)}`).toBeFalsy();
          expect(rowsOf(next.structuredContent)[0], t.name).not.toEqual(rows[0]);
        } else expect(body.more, `${t.name}: has_more without a cursor or a count`).toBeGreaterThan(0);
      }
      expect(failed).toEqual([]);
    }, 120_000);
  });
}

describe('search_transactions, as the issue found it', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness();
  });
  afterAll(() => h.close());

  it('limit 300 answers with the rows that fit, exact totals, and a cursor that gives every other match once', async () => {
    const first = ok(await h.call('search_transactions', { limit: 300 }));
    expect(first.returned).toBeGreaterThan(0);
    expect(first.returned).toBeLessThan(300);
    expect(first.has_more).toBe(true);
    expect(first.notices.join(' ')).toMatch(/Only \d+ of the 300 requested items fit/);
    const seen = first.transactions.map((t: any) => t.id);
    for (let cursor = first.next_cursor; cursor;) {
      const page = ok(await h.call('search_transactions', { limit: 300, cursor }));
      seen.push(...page.transactions.map((t: any) => t.id));
      cursor = page.has_more ? page.next_cursor : undefined;
    }
    expect(seen).toHaveLength(first.count);
    expect(new Set(seen).size).toBe(first.count);
  }, 60_000);
});
