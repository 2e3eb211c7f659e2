/**
 * Card coverage through needs_attention (card_payment_shortfall, full detail), against the API's
 * raw data: each open card that owes more than its payment category holds, the shortfall, why
 * (this month's credit overspending on that card by category, and debt carried from before), and
 * moves as move_money's arguments. The moves are then made with move_money itself, and the cards
 * they cover no longer fall short: the preview is what the write does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { activityLines, raw, thisMonth, todayUtc } from './raw.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

const shortfalls = async (args: Record<string, unknown> = {}) =>
  ok(await h.call('needs_attention', { kind: 'card_payment_shortfall', ...args })).attention[0]?.examples ?? [];

describe('card coverage', () => {
  it('says what is uncovered on each card and why, and the moves that cover it', async () => {
    let r = await raw(h.sb);
    const store = r.accounts.find((a) => a.name === 'Citi Store Card');
    const month = thisMonth();
    const today = todayUtc();
    const storeHeld = (await r.month(month)).categories.find((c: any) => c.name === store.name && c.category_group_name === 'Credit Card Payments').balance;
    // Overspend on the store card a category that nothing has been spent in this month, by $30.
    const lines = activityLines(r, month, today);
    const quiet = (await r.month(month)).categories.find(
      (c: any) =>
        !c.deleted &&
        !c.hidden &&
        c.balance >= 0 &&
        c.category_group_name !== 'Credit Card Payments' &&
        !c.name.startsWith('Inflow') &&
        c.name !== 'Uncategorized' &&
        !lines.some((l) => l.category_id === c.id),
    );
    ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: store.id, amount_milliunits: -(quiet.balance + 30_000), payee_name: 'REI', category_id: quiet.id, date: today }],
      }),
    );

    r = await raw(h.sb);
    const view = await (await h.sb.get(`${r.b}/months/${month}`)).body.data.month;
    const available = (name: string) => view.categories.find((c: any) => c.name === name && c.category_group_name === 'Credit Card Payments')?.balance ?? 0;
    const cards = r.accounts
      .filter((a) => (a.on_budget && !a.closed && a.type === 'creditCard') || a.type === 'lineOfCredit')
      .filter((a) => a.balance < 0 && -a.balance > available(a.name));
    const rows = await shortfalls({ detail: 'full' });
    expect(rows.map((x: any) => x.name).sort()).toEqual(cards.map((a) => a.name).sort());

    const spentOn = (card: string, category: string) =>
      -activityLines(r, month, today)
        .filter((l) => l.account_id === card && l.category_id === category)
        .reduce((s, l) => s + l.amount, 0);
    for (const row of rows) {
      const a = cards.find((x) => x.name === row.name)!;
      const shortfall = -a.balance - available(a.name);
      expect(row.shortfall).toBe(shortfall);
      // Each category named overspent is below zero this month, and the card spent at least that much there.
      for (const o of row.overspent) {
        const c = view.categories.find((x: any) => x.name === o.category);
        expect(c.balance, o.category).toBeLessThan(0);
        expect(o.amount).toBeLessThanOrEqual(Math.min(-c.balance, spentOn(a.id, c.id)));
      }
      const explained = row.overspent.reduce((s: number, o: any) => s + o.amount, 0);
      expect(row.carried).toBe(shortfall - Math.min(shortfall, explained));
      for (const m of row.cover_with_move_money) expect(m.to_category_id).toBe(a.name);
      expect(row.cover_with_move_money.reduce((s: number, m: any) => s + m.amount_milliunits, 0)).toBe(shortfall);
    }
    // The store card: its opening debt carried, and the $30 of credit overspending in the quiet category.
    const storeRow = rows.find((x: any) => x.name === store.name);
    expect(storeRow.overspent).toEqual([{ category: quiet.name, amount: 30_000, amount_formatted: '$30.00' }]);
    // Carried: what it owed before the purchase, less what its payment category held then (its minimum, paid this month).
    expect(storeRow.carried).toBe(-store.balance - storeHeld);
    // No category gives more than it holds, across all the cards' moves.
    const given = new Map<string, number>();
    for (const row of rows)
      for (const m of row.cover_with_move_money) given.set(m.from_category_id, (given.get(m.from_category_id) ?? 0) + m.amount_milliunits);
    for (const [name, amount] of given) {
      const c = view.categories.find((x: any) => x.name === name);
      expect(c.category_group_name).not.toBe('Credit Card Payments');
      expect(amount).toBeLessThanOrEqual(c.balance);
    }
    // Compact rows say why in a few words.
    expect((await shortfalls()).find((x: any) => x.name === store.name).why).toBe(`overspent: ${quiet.name}; debt carried`);

    // The moves, made with move_money as previewed, cover every card.
    for (const row of rows) for (const m of row.cover_with_move_money) ok(await h.call('move_money', m));
    expect(await shortfalls()).toEqual([]);
  });
});
