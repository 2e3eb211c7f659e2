/**
 * needs_attention through a real MCP client: each kind's count, examples and reason, with the
 * expected items computed in the test from the API's raw answers: unapproved and uncategorized
 * transactions of any date (transfers, starting balances and reconciled rows never
 * uncategorized), overspent categories split into cash and credit as YNAB counts them (cash
 * first), underfunded targets, card payment categories short of the card's balance, scheduled
 * transactions an account cannot cover, stale reconciliation, Ready to Assign.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, thisMonth, todayUtc, usd, type Raw } from './raw.js';

let h: McpHarness;
const u = Date.now().toString(36);
const today = todayUtc();
const CREDIT = new Set(['creditCard', 'lineOfCredit']);

beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

const kind = (res: any, k: string) => res.attention.find((x: any) => x.kind === k);
const create = async (t: Record<string, unknown>) =>
  ok(await h.call('create_transactions', { transactions: [{ date: today, cleared: 'cleared', approved: true, ...t }] })).transactions[0];

/** A kind in full detail: its count, a one-line reason, every item up to 50 as examples (past it, how many more); asked for alone (kind), every item. */
async function expectKind(res: any, k: string, ids: string[]) {
  const found = kind(res, k);
  if (!ids.length) {
    expect(found, k).toBeUndefined();
    expect(res.clear).toContain(k);
    return;
  }
  expect(found.count, k).toBe(ids.length);
  expect(found.reason).toMatch(/^[A-Z].{15,}\.$/);
  expect(found.examples.length).toBe(Math.min(50, ids.length));
  expect(found.more, k).toBe(ids.length > 50 ? ids.length - 50 : undefined);
  for (const e of found.examples) expect(ids, k).toContain(e.id);
  const alone = ok(await h.call('needs_attention', { kind: k, detail: 'full' }));
  expect(alone.attention.map((x: any) => x.kind)).toEqual([k]);
  expect(alone.attention[0].examples.map((e: any) => e.id).sort(), k).toEqual([...ids].sort());
  expect(alone.attention[0].examples.slice(0, 50)).toEqual(found.examples);
}

/** The overview's first item of a kind, from its full row: its name and figure in a few words. */
function firstOf(k: string, e: any): Record<string, string> | undefined {
  const line: Record<string, () => [string, string]> = {
    unapproved: () => [e.payee_name, e.amount_formatted],
    uncategorized: () => [e.payee_name, e.amount_formatted],
    overspent: () => [e.name, `${e.overspent_formatted} (${e.type})`],
    underfunded: () => [e.name, e.due ? `${e.underfunded_formatted}, due ${e.due}` : e.underfunded_formatted],
    card_payment_shortfall: () => [e.name, `${e.shortfall_formatted} short`],
    upcoming_shortfall: () => [
      e.name,
      `${e.lowest_balance_formatted} on ${e.lowest_on} after ${e.bill.payee_name} ${e.bill.amount_formatted}${e.bill.date === e.lowest_on ? '' : ` on ${e.bill.date}`}`,
    ],
    unreconciled: () => [e.name, `last ${e.last_reconciled_on}`],
    price_increase: () => [e.name, `${e.old_formatted} to ${e.new_formatted}`],
  };
  const pair = line[k]?.();
  return pair ? { [pair[0]]: pair[1] } : undefined;
}

/**
 * An item as compact detail writes it: named (every tool takes names), figures in milliunits
 * beside their text (issue 43), and only what the kind is about (a transaction's payee and amount; a category's or account's
 * name and figure; no ids, dates of transactions, payment available or cleared balance).
 */
function compactOf(k: string, e: any): any {
  const figures = (...names: string[]) =>
    Object.fromEntries(
      names
        .filter((n) => e[n] !== undefined)
        .flatMap((n) => [
          [n, e[n]],
          [`${n}_formatted`, e[`${n}_formatted`]],
        ]),
    );
  switch (k) {
    case 'unapproved':
    case 'uncategorized':
      return { payee_name: e.payee_name, ...figures('amount') };
    case 'overspent':
      return { name: e.name, ...figures('overspent', 'credit_overspent'), type: e.type };
    case 'underfunded':
      return { name: e.name, ...figures('underfunded'), ...(e.due ? { due: e.due } : {}) };
    case 'card_payment_shortfall': {
      // Compact says why in a few words: the categories overspent on the card, and/or debt carried.
      const why = [
        e.overspent_by_category.length ? `overspent: ${e.overspent_by_category.map((o: any) => o.category).join(', ')}` : '',
        e.carried > 0 ? 'debt carried' : '',
      ];
      return { name: e.name, ...figures('balance', 'shortfall'), why: why.filter(Boolean).join('; ') };
    }
    case 'upcoming_shortfall':
      return { name: e.name, ...figures('balance', 'lowest_balance'), lowest_on: e.lowest_on, bill: e.bill };
    case 'unreconciled':
      return { name: e.name, last_reconciled_on: e.last_reconciled_on };
    case 'price_increase':
      return { name: e.name, ...figures('old', 'new') };
    default:
      return { ...figures('ready_to_assign'), state: e.state };
  }
}

/** Transactions YNAB shows as uncategorized: a budget line without a category that is not a transfer between budget accounts or a starting balance, reconciled or not. */
function uncategorized(r: Raw): string[] {
  return r.transactions
    .filter((t) => r.account.get(t.account_id)?.on_budget && t.payee_name !== 'Starting Balance')
    .filter((t) =>
      rawLines(t).some(
        (l) => (!l.category_id || l.category_id === r.uncategorized) && !(l.transfer_account_id && r.account.get(l.transfer_account_id)?.on_budget),
      ),
    )
    .map((t) => t.id);
}

describe('needs_attention', () => {
  it("lists every kind as the API's own data says", async () => {
    // Make some of everything: overspending of each sort, an uncategorized row, a scheduled outflow the wallet cannot cover.
    const group = 'Quality of Life';
    const cats: Record<string, string> = {};
    for (const [key, assigned] of [
      ['credit', 10],
      ['mixed', 10],
      ['cash', 0],
    ] as const) {
      const c = ok(await h.call('create_category', { name: `Att ${key} ${u}`, category_group_id: group })).category;
      cats[key] = c.id;
      if (assigned) ok(await h.call('update_month_category', { month: 'current', category_id: c.name, budgeted: assigned }));
    }
    await create({ account_id: 'Visa Rewards', amount: -30, payee_name: `Att Card ${u}`, category_id: cats.credit });
    await create({ account_id: 'Everyday Checking', amount: -15, payee_name: `Att Cash ${u}`, category_id: cats.mixed });
    await create({ account_id: 'Visa Rewards', amount: -20, payee_name: `Att Card ${u}`, category_id: cats.mixed });
    await create({ account_id: 'Everyday Checking', amount: -20, payee_name: `Att Cash ${u}`, category_id: cats.cash });
    const wallet = ok(await h.call('get_account', { account_id: 'Wallet' })).account;
    const inThreeDays = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Wallet',
        date: inThreeDays,
        amount_milliunits: -(wallet.balance + 100_000),
        payee_name: `Att Big Bill ${u}`,
        frequency: 'never',
      }),
    );

    const res = ok(await h.call('needs_attention', { detail: 'full' }));
    const r = await raw(h.sb);
    const view = await r.month(thisMonth());
    expect(res.as_of).toBe(today);
    expect(res.budget).toEqual({ id: r.budget.id, name: 'Demo Household' });

    await expectKind(
      res,
      'unapproved',
      r.transactions.filter((t) => !t.approved && r.account.get(t.account_id)?.on_budget).map((t) => t.id),
    );
    const newest = kind(res, 'unapproved').examples.map((e: any) => e.date);
    expect(newest).toEqual([...newest].sort().reverse());
    await expectKind(res, 'uncategorized', uncategorized(r));

    // Overspent: cash first, then credit up to what was spent on cards.
    const paymentGroup = r.groups.find((g) => g.name === 'Credit Card Payments');
    const overspent = view.categories.filter((c: any) => c.balance < 0 && !c.internal && c.category_group_id !== paymentGroup.id);
    await expectKind(
      res,
      'overspent',
      overspent.map((c: any) => c.id),
    );
    const spent = (categoryId: string, credit: boolean) =>
      Math.max(
        0,
        -r.transactions
          .flatMap(rawLines)
          .filter((l) => l.category_id === categoryId && l.date.startsWith(thisMonth().slice(0, 7)) && CREDIT.has(r.account.get(l.account_id)?.type) === credit)
          .reduce((s, l) => s + l.amount, 0),
      );
    for (const c of overspent) {
      const over = -c.balance;
      const credit = Math.min(Math.max(0, over - spent(c.id, false)), spent(c.id, true));
      const type = credit === 0 ? 'cash' : credit === over ? 'credit' : 'cash and credit';
      const row = kind(res, 'overspent').examples.find((e: any) => e.id === c.id);
      if (row) expect(row, c.name).toMatchObject({ overspent: over, overspent_formatted: usd(over), type });
    }
    const ours = view.categories.filter((c: any) => Object.values(cats).includes(c.id));
    expect(ours.map((c: any) => -c.balance).sort((a: number, b: number) => a - b)).toEqual([20_000, 20_000, 25_000]);
    // The three made above, wherever they are among the examples (the worst five).
    const shown = (id: string) => kind(res, 'overspent').examples.find((e: any) => e.id === id);
    if (shown(cats.credit!)) expect(shown(cats.credit!)).toMatchObject({ overspent: 20_000, type: 'credit' });
    if (shown(cats.mixed!)) expect(shown(cats.mixed!)).toMatchObject({ overspent: 25_000, type: 'cash and credit', credit_overspent: 10_000 });
    if (shown(cats.cash!)) expect(shown(cats.cash!)).toMatchObject({ overspent: 20_000, type: 'cash' });
    expect([cats.credit, cats.mixed, cats.cash].some((id) => shown(id!))).toBe(true);

    await expectKind(
      res,
      'underfunded',
      view.categories.filter((c: any) => c.goal_under_funded > 0 && !c.hidden).map((c: any) => c.id),
    );

    const shortfalls = r.accounts.filter((a) => {
      const payment = paymentGroup.categories.find((c: any) => c.name === a.name);
      const available = view.categories.find((c: any) => c.id === payment?.id)?.balance ?? 0;
      return payment && a.on_budget && !a.closed && a.balance < 0 && -a.balance - available > 0;
    });
    await expectKind(
      res,
      'card_payment_shortfall',
      shortfalls.map((a) => a.id),
    );
    for (const e of kind(res, 'card_payment_shortfall')?.examples ?? []) {
      const a = r.account.get(e.id);
      const payment = view.categories.find((c: any) => c.name === a.name && c.category_group_id === paymentGroup.id);
      expect(e).toMatchObject({
        balance: a.balance,
        payment_available: payment.balance,
        shortfall: -a.balance - payment.balance,
        shortfall_formatted: usd(-a.balance - payment.balance),
      });
    }

    // The wallet cannot cover the bill in three days (nothing else is scheduled on it within 14).
    expect(r.scheduled.filter((s) => s.account_id === wallet.id && !s.payee_name?.startsWith('Att Big Bill'))).toEqual([]);
    const walletRow = kind(res, 'upcoming_shortfall').examples.find((e: any) => e.id === wallet.id);
    expect(walletRow).toMatchObject({ balance: wallet.balance, lowest_balance: -100_000, lowest_balance_formatted: '-$100.00', lowest_on: inThreeDays });
    // The bill that takes it below zero, with its payee.
    const bill = -(wallet.balance + 100_000);
    expect(walletRow.bill).toEqual({ payee_name: `Att Big Bill ${u}`, amount: bill, amount_formatted: usd(bill), date: inThreeDays });

    const cutoff = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const used = new Set(r.transactions.map((t) => t.account_id));
    await expectKind(
      res,
      'unreconciled',
      r.accounts
        .filter((a) => a.on_budget && !a.closed && used.has(a.id) && (!a.last_reconciled_at || a.last_reconciled_at.slice(0, 10) < cutoff))
        .map((a) => a.id),
    );

    const last = r.months[r.months.length - 1];
    const rta = kind(res, 'ready_to_assign');
    if (last.to_be_budgeted === 0) expect(rta).toBeUndefined();
    else
      expect(rta.examples[0]).toMatchObject({
        ready_to_assign_month: last.month,
        ready_to_assign: last.to_be_budgeted,
        ready_to_assign_formatted: usd(last.to_be_budgeted),
        state: last.to_be_budgeted < 0 ? 'negative' : 'waiting',
      });
  });

  it('compact (the default): the same kinds, counts and reasons, the first item of each named with its figure; kind lists every item', async () => {
    const full = ok(await h.call('needs_attention', { detail: 'full' }));
    const compact = ok(await h.call('needs_attention'));
    expect(compact.as_of).toBe(today);
    expect(compact.clear).toEqual(full.clear);
    expect(compact.attention.map((k: any) => [k.kind, k.count])).toEqual(full.attention.map((k: any) => [k.kind, k.count]));
    // When every kind fires, the last kinds give up their reason (not their first item) to stay within 1,580 bytes.
    const reasons = compact.attention.map((k: any) => k.reason);
    reasons.forEach((x: string | undefined, i: number) => {
      if (x !== undefined) expect(x).toBe(full.attention[i].reason);
      if (x !== undefined && i > 0 && compact.attention[i].kind !== 'ready_to_assign') expect(reasons[i - 1]).toBeDefined();
    });
    expect(full.attention.map((k: any) => k.examples.length + (k.more ?? 0))).toEqual(full.attention.map((k: any) => k.count));
    expect(
      full.attention.some((k: any) => k.count > 2),
      'a kind with more than two items',
    ).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(compact.attention))).toBeLessThanOrEqual(1_580);
    for (const k of compact.attention) {
      const f = kind(full, k.kind);
      // The overview: no rows, the first item named with its figure (Ready to Assign's figure is the kind's own).
      expect(k.examples, k.kind).toBeUndefined();
      expect(k.first, k.kind).toEqual(firstOf(k.kind, f.examples[0]));
      // Asked for alone: every item, compact, in the full answer's order.
      const alone = ok(await h.call('needs_attention', { kind: k.kind }));
      const all = ok(await h.call('needs_attention', { kind: k.kind, detail: 'full' }));
      expect(alone.attention).toHaveLength(1);
      expect(alone.attention[0]).toMatchObject({ kind: k.kind, count: k.count, reason: f.reason });
      expect(alone.attention[0].examples).toHaveLength(Math.min(100, k.count));
      expect(alone.attention[0].examples, k.kind).toEqual(all.attention[0].examples.map((e: any) => compactOf(k.kind, e)));
    }
    // A kind that found nothing is said clear.
    for (const k of compact.clear) expect(ok(await h.call('needs_attention', { kind: k }))).toMatchObject({ attention: [], clear: [k] });
  });

  it('never counts transfers or starting balances as uncategorized, counts reconciled rows (issue 57); counts any date; tracking accounts only when asked', async () => {
    const before = ok(await h.call('needs_attention'));
    // Against the budget as it was, tracking accounts' rows too: the demo's may already hold some (on the 1st, say).
    const everywhereBefore = ok(await h.call('needs_attention', { include_off_budget: true }));
    const count = (res: any, k: string) => kind(res, k)?.count ?? 0;
    const savings = ok(await h.call('get_account', { account_id: 'Rainy Day Savings' })).account;
    await create({ account_id: 'Everyday Checking', amount: -5, payee_id: savings.transfer_payee_id });
    await create({ account_id: 'Everyday Checking', amount: -6, payee_name: `Att Reconciled ${u}`, cleared: 'reconciled' });
    ok(await h.call('create_account', { name: `Att New ${u}`, type: 'savings', balance: 100 }));
    const old = new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10);
    await create({ account_id: 'Everyday Checking', amount: -7, payee_name: `Att Old ${u}`, date: old, approved: false });
    const tracking = (await raw(h.sb)).accounts.find((a) => !a.on_budget && !a.closed);
    await create({ account_id: tracking.id, amount: -8, payee_name: `Att Tracking ${u}`, approved: false });
    const after = ok(await h.call('needs_attention'));
    // The reconciled row and the year-old row are uncategorized (whatever their status and date); the year-old one unapproved.
    expect(count(after, 'uncategorized') - count(before, 'uncategorized')).toBe(2);
    expect(count(after, 'unapproved') - count(before, 'unapproved')).toBe(1);
    // With tracking accounts: the tracking account's row too.
    const everywhere = ok(await h.call('needs_attention', { include_off_budget: true }));
    expect(count(everywhere, 'unapproved') - count(everywhereBefore, 'unapproved')).toBe(2);
  });
});
