/**
 * needs_attention's price_increase (issue 26 item 5), through a real MCP client on charges planted
 * through the API: a payee charged monthly at a steady price whose latest charge is 5% or more
 * above it is listed with the old and new amount (figures from the API's raw answer); a 4% rise,
 * charges at irregular intervals, and a bill whose amount always varies are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, todayUtc } from './raw.js';

let h: McpHarness;
const u = Date.now().toString(36);
const today = todayUtc();
const day = (n: number) => new Date(Date.parse(today) + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'price-increase' } });
});
afterAll(() => h.close());

async function charges(payee: string, list: [number, number][]) {
  ok(
    await h.call('create_transactions', {
      allow_duplicate: true,
      transactions: list.map(([offset, milliunits]) => ({
        account_id: 'Visa Rewards',
        date: day(offset),
        amount_milliunits: milliunits,
        payee_name: payee,
        category_id: 'Subscriptions',
        approved: true,
      })),
    }),
  );
}

describe('needs_attention price_increase', () => {
  it('lists a steady monthly charge whose latest is 5% or more above the usual, with old and new amount; not a 4% rise, irregular dates or a varying bill', async () => {
    const rise = `Streamly ${u}`;
    await charges(rise, [
      [-91, -15_490],
      [-61, -15_490],
      [-30, -15_490],
      [0, -16_990],
    ]);
    await charges(`Small Rise ${u}`, [
      [-90, -10_000],
      [-60, -10_000],
      [-30, -10_000],
      [0, -10_400],
    ]);
    await charges(`Irregular ${u}`, [
      [-90, -20_000],
      [-75, -20_000],
      [-20, -20_000],
      [0, -25_000],
    ]);
    await charges(`Varying Bill ${u}`, [
      [-90, -40_000],
      [-60, -52_000],
      [-30, -45_000],
      [0, -60_000],
    ]);
    const r = await raw(h.sb);
    const payee = r.payees.find((p) => p.name === rise);
    const amounts = r.transactions
      .filter((t) => t.payee_id === payee.id)
      .sort((a, b) => (a.date < b.date ? -1 : 1))
      .map((t) => t.amount);
    const old = amounts.slice(0, -1).sort((a, b) => a - b)[1];
    const latest = amounts[amounts.length - 1];

    const all = ok(await h.call('needs_attention', { kind: 'price_increase', detail: 'full' })).attention[0];
    expect(all.kind).toBe('price_increase');
    expect(all.reason).toMatch(/^[A-Z].{15,}\.$/);
    const names = all.examples.map((e: any) => e.name);
    expect(names).toContain(rise);
    for (const not of [`Small Rise ${u}`, `Irregular ${u}`, `Varying Bill ${u}`]) expect(names).not.toContain(not);
    expect(all.examples.find((e: any) => e.name === rise)).toMatchObject({
      id: payee.id,
      date: today,
      old: -old,
      old_formatted: '$15.49',
      new: -latest,
      new_formatted: '$16.99',
    });
    // Compact: named, each figure with its formatted text.
    const compact = ok(await h.call('needs_attention', { kind: 'price_increase' })).attention[0].examples.find((e: any) => e.name === rise);
    expect(compact).toEqual({ name: rise, old: -old, old_formatted: '$15.49', new: -latest, new_formatted: '$16.99' });
  });
});
