/**
 * A typical answer is at most 2 KB: each of the answers bench's twelve questions (the same calls,
 * shared through bench/questions.ts), asked through the real MCP client against the bench's demo
 * budget, answers in at most 2,048 bytes of text (the text a model reads, data boundary
 * included). Shortened lists still carry exact totals of everything and say how to get the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUESTIONS } from '../../bench/questions.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'bench' } });
});
afterAll(() => h.close());

describe('typical answers', () => {
  it.each(QUESTIONS.map((q, i) => [i + 1, q.question, q] as const))('Q%i "%s" answers in at most 2,048 bytes', async (_n, _q, q) => {
    const sizes: number[] = [];
    await q.insights(async (name, args = {}) => {
      const res = await h.call(name, args);
      sizes.push(Buffer.byteLength(res.content[0].text, 'utf8'));
      return ok(res);
    });
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toBeLessThanOrEqual(2048);
  });
});

describe('shortened lists', () => {
  it('upcoming lists a page of occurrences, totals every one, and the cursor gives the rest', async () => {
    const full = ok(await h.call('upcoming', { days: 30, detail: 'full' }));
    const first = ok(await h.call('upcoming', { days: 30 }));
    expect(full.occurrences.length).toBeGreaterThan(first.occurrences.length);
    expect(first).toMatchObject({ count: full.count, returned: first.occurrences.length, has_more: true, inflow_milliunits: full.inflow_milliunits, outflow_milliunits: full.outflow_milliunits });
    const sum = (xs: any[], sign: number) => xs.map((o) => o.amount_milliunits).filter((x) => Math.sign(x) === sign).reduce((a, b) => a + b, 0);
    expect(sum(full.occurrences, 1)).toBe(full.inflow_milliunits);
    expect(sum(full.occurrences, -1)).toBe(full.outflow_milliunits);
    const rest: any[] = [];
    for (let cursor = first.next_cursor; cursor; ) {
      const page = ok(await h.call('upcoming', { days: 30, cursor }));
      rest.push(...page.occurrences);
      cursor = page.has_more ? page.next_cursor : undefined;
    }
    const compact = [...first.occurrences, ...rest];
    expect(compact.map((o) => [o.date, o.payee_name, o.amount_milliunits, o.projected_balance_milliunits])).toEqual(
      full.occurrences.map((o: any) => [o.date, o.payee_name, o.amount_milliunits, o.projected_balance_milliunits]),
    );
  });

  it('needs_attention counts every item, shows a few, and kind lists them all', async () => {
    const res = ok(await h.call('needs_attention'));
    const many = res.attention.find((k: any) => k.count > k.examples.length);
    expect(many, 'a kind with more items than examples').toBeDefined();
    const one = ok(await h.call('needs_attention', { kind: many.kind }));
    expect(one.attention).toHaveLength(1);
    expect(one.attention[0]).toMatchObject({ kind: many.kind, count: many.count });
    expect(one.attention[0].examples).toHaveLength(many.count);
    expect(one.attention[0].examples.slice(0, many.examples.length)).toEqual(many.examples);
  });

  it('spending_summary compact rows add up to the totals; full detail gives ids, assigned and formatted figures', async () => {
    const compact = ok(await h.call('spending_summary', {}));
    const full = ok(await h.call('spending_summary', { detail: 'full' }));
    expect(compact.totals).toEqual(full.totals);
    expect(compact.rows.reduce((s: number, r: any) => s + r.net_milliunits, 0)).toBe(compact.totals.net_milliunits);
    expect(compact.rows.reduce((s: number, r: any) => s + r.count, 0)).toBe(compact.totals.count);
    expect(compact.rows.map((r: any) => [r.name, r.net_milliunits, r.previous_net_milliunits])).toEqual(full.rows.map((r: any) => [r.name, r.net_milliunits, r.previous_net_milliunits]));
    for (const r of full.rows.filter((x: any) => !x.groups)) expect(r).toMatchObject({ id: expect.any(String), net_formatted: expect.any(String), assigned_milliunits: expect.any(Number) });
    for (const r of compact.rows) expect(r.id).toBeUndefined();
  });
});
