/**
 * credit_cards (issue 58 item 6), "how much do we owe on our cards, and how much is set aside?",
 * in one call through a real MCP client, on three seeds and two dates (mid-month and the first of
 * a month: the server and the sandbox run in this process's clock). Every figure is computed here
 * from the API's raw answers, with YNAB's credit-card rules written out again: a card owes its
 * balance; its payment category (in Credit Card Payments, named as the card) should hold that;
 * short or extra is the difference; the shortfall's reason is this month's credit overspending on
 * the card (a category overspent beyond the cash spent in it, shared among the cards that spent
 * there, most first, each up to what it spent) and, the rest, debt carried from before. Lines of
 * credit only when asked for, and named when left out. Then a card is given $25 more than it owes,
 * and says extra $25.00.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { activityLines, lastDay, raw, shiftMonth, usd, type Raw } from './raw.js';

const CREDIT = new Set(['creditCard', 'lineOfCredit']);
const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
/** The middle of this month, and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cards-a', 'cards-b'];
const FIGURES = ['owed', 'payment_available', 'shortfall', 'extra', 'overspent', 'carried'] as const;

const money = (figures: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(figures).flatMap(([k, v]) => [
      [k, v],
      [`${k}_formatted`, usd(v)],
    ]),
  );

/** Each card's figures as YNAB counts them, from the raw month and transactions. */
async function expected(r: Raw, month: string, types: Set<string>): Promise<{ name: string; figures: Record<string, number> }[]> {
  const view = await r.month(month);
  const payment = (name: string) => view.categories.find((c: any) => !c.deleted && c.category_group_name === 'Credit Card Payments' && c.name === name);
  // Credit overspending per card this month.
  const lines = activityLines(r, month, lastDay(month));
  const onCard = new Map<string, number>();
  for (const c of view.categories) {
    if (c.deleted || c.internal || c.balance >= 0 || c.category_group_name === 'Credit Card Payments') continue;
    const mine = lines.filter((l) => l.category_id === c.id);
    const cash = -mine.filter((l) => !CREDIT.has(r.account.get(l.account_id).type)).reduce((s, l) => s + l.amount, 0);
    const spent = new Map<string, number>();
    for (const l of mine) if (CREDIT.has(r.account.get(l.account_id).type)) spent.set(l.account_id, (spent.get(l.account_id) ?? 0) - l.amount);
    let credit = Math.max(0, -c.balance - Math.max(0, cash));
    for (const [card, amount] of [...spent].filter(([, x]) => x > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
      const share = Math.min(credit, amount);
      if (share <= 0) break;
      onCard.set(card, (onCard.get(card) ?? 0) + share);
      credit -= share;
    }
  }
  return r.accounts
    .filter((a) => !a.closed && a.on_budget && types.has(a.type) && payment(a.name))
    .sort((x, y) => x.balance - y.balance || (x.name < y.name ? -1 : 1))
    .map((a) => {
      const owed = Math.max(0, -a.balance);
      const available = payment(a.name).balance;
      const shortfall = Math.max(0, owed - available);
      const overspent = Math.min(onCard.get(a.id) ?? 0, shortfall);
      return {
        name: a.name,
        figures: { owed, payment_available: available, shortfall, extra: Math.max(0, available - owed), overspent, carried: shortfall - overspent },
      };
    });
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('credit_cards, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  const month = `${date.slice(0, 7)}-01`;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('gives every open card what it owes, what its payment category holds, short or extra and why, and the totals; lines of credit named apart', async () => {
    const r = await raw(h.sb);
    const cards = await expected(r, month, new Set(['creditCard']));
    expect(cards.length).toBeGreaterThan(1);
    const res = ok(await h.call('credit_cards', {}));
    expect(res.as_of).toBe(date);
    expect(res.cards).toEqual(cards.map((c) => ({ name: c.name, ...money(c.figures) })));
    const total = (k: string) => cards.reduce((s, c) => s + c.figures[k]!, 0);
    expect(res.totals).toEqual({ count: cards.length, ...money(Object.fromEntries(FIGURES.map((k) => [k, total(k)]))) });
    // The demo's store card carries debt from before YNAB: short, and why.
    expect(res.cards.find((c: any) => c.name === 'Citi Store Card').carried).toBeGreaterThan(0);
    const lines = r.accounts.filter((a) => !a.closed && a.type === 'lineOfCredit').map((a) => a.name);
    expect(lines).toEqual(['Home Equity Line']);
    expect(res.left_out).toEqual({ 'Home Equity Line': 'a line of credit: include_lines_of_credit: true lists it' });

    // Asked for, the lines of credit are listed too, with the same figures; nothing is left out.
    const all = ok(await h.call('credit_cards', { include_lines_of_credit: true, detail: 'full' }));
    const withLines = await expected(r, month, CREDIT);
    expect(all.cards.map((c: any) => c.name)).toEqual(withLines.map((c) => c.name));
    for (const [i, c] of withLines.entries()) expect(all.cards[i]).toMatchObject({ id: r.accounts.find((a) => a.name === c.name).id, ...money(c.figures) });
    expect(all).not.toHaveProperty('left_out');
    // Compact, every card and line of credit with every figure: within the insights' 2 KB.
    expect(Buffer.byteLength((await h.call('credit_cards', { include_lines_of_credit: true })).content[0].text)).toBeLessThanOrEqual(2048);
    // Full detail: what covers each short card, as move_money's arguments, and the categories behind its overspending.
    for (const c of all.cards) {
      expect(c.cover_with_move_money.reduce((s: number, m: any) => s + m.amount_milliunits, 0)).toBeLessThanOrEqual(c.shortfall);
      expect(c.overspent_by_category.reduce((s: number, o: any) => s + o.amount, 0)).toBeGreaterThanOrEqual(c.overspent);
    }
    // needs_attention's card shortfalls are the same figures (one computation, two tools).
    const short = ok(await h.call('needs_attention', { kind: 'card_payment_shortfall' })).attention[0]?.examples ?? [];
    for (const s of short) expect(s.shortfall).toBe(all.cards.find((c: any) => c.name === s.name).shortfall);
  });

  it('says extra when a payment category holds more than its card owes', async () => {
    const r = await raw(h.sb);
    const visa = r.accounts.find((a) => a.name === 'Visa Rewards');
    const view = await r.month(month);
    const payment = view.categories.find((c: any) => c.category_group_name === 'Credit Card Payments' && c.name === visa.name);
    const owed = Math.max(0, -visa.balance);
    const assigned = payment.budgeted + (owed + 25_000 - payment.balance);
    ok(await h.call('update_month_category', { month, category_id: payment.id, budgeted_milliunits: assigned }));
    const row = ok(await h.call('credit_cards', {})).cards.find((c: any) => c.name === visa.name);
    expect(row).toMatchObject({ owed, payment_available: owed + 25_000, shortfall: 0, extra: 25_000, extra_formatted: '$25.00', overspent: 0, carried: 0 });
  });

  it("names this month's overspending on a card as why it is short, apart from the debt it carried", async () => {
    let r = await raw(h.sb);
    const store = r.accounts.find((a) => a.name === 'Citi Store Card');
    const before = (await expected(r, month, new Set(['creditCard']))).find((c) => c.name === store.name)!.figures;
    // A category nothing was spent in this month, overspent on the store card by $30.
    const lines = activityLines(r, month, lastDay(month));
    const quiet = (await r.month(month)).categories.find(
      (c: any) =>
        !c.deleted &&
        !c.hidden &&
        !c.internal &&
        c.balance >= 0 &&
        c.category_group_name !== 'Credit Card Payments' &&
        !lines.some((l) => l.category_id === c.id),
    );
    ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: store.id, amount_milliunits: -(quiet.balance + 30_000), payee_name: 'REI', category_id: quiet.id, date }],
      }),
    );
    r = await raw(h.sb);
    const after = (await expected(r, month, new Set(['creditCard']))).find((c) => c.name === store.name)!.figures;
    expect(after.overspent).toBe(30_000);
    expect(after.carried).toBe(before.carried);
    const row = ok(await h.call('credit_cards', {})).cards.find((c: any) => c.name === store.name);
    expect(row).toEqual({ name: store.name, ...money(after) });
  });
});
