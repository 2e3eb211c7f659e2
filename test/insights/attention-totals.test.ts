/**
 * needs_attention's lists give their totals and say what they count (issue 43 items 3 and 4),
 * through a real MCP client, each figure computed here from the sandbox's raw API:
 *  - every kind's total of every item (not only the examples), each money figure with its
 *    `_formatted` text;
 *  - the unapproved count says how many rows are the two sides of one transfer, and its total
 *    gives the transfers (a cash-back split line, one side of a move to savings) apart;
 *  - full rows of transactions are lean (issue 58 item 5: every item listed, within the answer's size).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, thisMonth, todayUtc, usd, type Raw } from './raw.js';

const today = todayUtc();
let h: McpHarness;
let r: Raw;
const kind = (res: any, k: string) => res.attention.find((x: any) => x.kind === k);
const post = async (path: string, body: unknown) => {
  const res = await h.sb.call('POST', `${r.b}${path}`, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.data;
};
const accountNamed = (name: string) => r.accounts.find((a) => a.name === name);
const categoryNamed = (name: string) => r.categories.find((c) => c.name === name);

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'attention-totals' } });
  r = await raw(h.sb);
  const checking = accountNamed('Everyday Checking');
  const wallet = accountNamed('Wallet');
  const savings = accountNamed('Rainy Day Savings');
  // Through the API itself: a purchase with cash back to the wallet, and a move to savings, both unapproved.
  await post('/transactions', {
    transaction: {
      account_id: checking.id,
      date: today,
      amount: -120_000,
      payee_name: 'Totals Warehouse',
      approved: false,
      subtransactions: [
        { amount: -100_000, category_id: categoryNamed('Groceries').id },
        { amount: -20_000, payee_id: wallet.transfer_payee_id, memo: 'cash back' },
      ],
    },
  });
  await post('/transactions', { transaction: { account_id: checking.id, date: today, amount: -75_000, payee_id: savings.transfer_payee_id, approved: false } });
  // Whatever the day of the month (on the 1st the demo's month has hardly begun): a purchase left
  // uncategorized, one that overspends its category, and income to assign, all approved.
  const approved = (amount: number, payee_name: string, category_id?: string) => ({
    account_id: checking.id,
    date: today,
    amount,
    payee_name,
    category_id,
    approved: true,
  });
  await post('/transactions', {
    transactions: [
      approved(-4_321_000, 'Totals Appliance Store', categoryNamed('Groceries').id),
      approved(-12_340, 'Totals Kiosk'),
      approved(987_650, 'Totals Bonus', r.rta),
    ],
  });
  r = await raw(h.sb);
  // The wallet's side of the cash back approved: the split's line is a transfer whose other side is not in the queue.
  const walletSide = r.transactions.find((t) => t.account_id === wallet.id && t.transfer_account_id === checking.id && t.amount === 20_000 && t.date === today);
  const patched = await h.sb.call('PUT', `${r.b}/transactions/${walletSide.id}`, { transaction: { approved: true } });
  expect(patched.status).toBe(200);
  r = await raw(h.sb);
});
afterAll(() => h.close());

/** The unapproved queue as the raw API has it: on-budget rows, their transfer pairs, their transfer lines. */
function unapprovedRaw() {
  const rows = r.transactions.filter((t) => !t.approved && r.account.get(t.account_id)?.on_budget);
  const ids = new Set(rows.map((t) => t.id));
  // A transfer's other side may be a split's line: its transaction is the split.
  const owner = new Map<string, string>(r.transactions.flatMap((t) => [[t.id, t.id], ...(t.subtransactions ?? []).map((x: any) => [x.id, t.id])]));
  const sides = rows.filter((t) =>
    [t.transfer_transaction_id, ...(t.subtransactions ?? []).filter((x: any) => !x.deleted).map((x: any) => x.transfer_transaction_id)].some(
      (o) => o && owner.get(o) !== t.id && ids.has(owner.get(o)!),
    ),
  );
  const onBudget = (id: string | null) => !!id && r.account.get(id)?.on_budget;
  const transfers = rows.flatMap(rawLines).filter((l) => l.transfer_account_id && onBudget(l.transfer_account_id));
  return {
    rows,
    sides: sides.length,
    total: rows.reduce((s, t) => s + t.amount, 0),
    transfers: transfers.reduce((s, l) => s + l.amount, 0),
  };
}

describe('needs_attention totals', () => {
  it('unapproved: the count says how many are two sides of one transfer, the total gives the transfers apart', async () => {
    const q = unapprovedRaw();
    // Both sides of the move to savings wait (they cancel out in the total); the cash back's wallet side does not.
    expect(q.sides).toBeGreaterThanOrEqual(2);
    expect(q.transfers).not.toBe(0);
    const pairs = q.sides / 2;
    for (const res of [ok(await h.call('needs_attention')), ok(await h.call('needs_attention', { detail: 'full' }))]) {
      const u = kind(res, 'unapproved');
      expect(u).toMatchObject({
        count: q.rows.length,
        transfer_sides: q.sides,
        total: q.total,
        total_formatted: usd(q.total),
        transfers_total: q.transfers,
        transfers_total_formatted: usd(q.transfers),
        excluding_transfers_total: q.total - q.transfers,
        excluding_transfers_total_formatted: usd(q.total - q.transfers),
      });
      expect(u.note).toContain(`${q.rows.length}, of which ${q.sides} are the two sides of ${pairs === 1 ? 'one transfer' : `${pairs} transfers`}`);
      expect(u.note).toContain(`the total includes ${usd(q.transfers)} of transfers`);
    }
  });

  it('every kind gives the total of all its items, each money figure with its formatted text', async () => {
    const full = ok(await h.call('needs_attention', { detail: 'full' }));
    const view = await r.month(thisMonth());
    const paymentGroup = r.groups.find((g) => g.name === 'Credit Card Payments');
    const expected: Record<string, [string, number]> = {};
    // Uncategorized: the lines without a category (transfers between budget accounts never are; reconciled rows are, issue 57).
    const onBudget = (id: string | null) => !!id && r.account.get(id)?.on_budget;
    const noCategory = r.transactions
      .filter((t) => onBudget(t.account_id) && t.payee_name !== 'Starting Balance')
      .flatMap(rawLines)
      .filter((l) => (!l.category_id || l.category_id === r.uncategorized) && !(l.transfer_account_id && onBudget(l.transfer_account_id)));
    if (noCategory.length) expected.uncategorized = ['total', noCategory.reduce((s, l) => s + l.amount, 0)];
    const overspent = view.categories.filter((c: any) => c.balance < 0 && !c.internal && c.category_group_id !== paymentGroup.id);
    if (overspent.length) expected.overspent = ['overspent_total', -overspent.reduce((s: number, c: any) => s + c.balance, 0)];
    const short = r.accounts
      .map((a) => ({ a, payment: view.categories.find((c: any) => c.name === a.name && c.category_group_id === paymentGroup.id) }))
      .filter(({ a, payment }) => payment && a.on_budget && !a.closed && a.balance < 0 && -a.balance - payment.balance > 0);
    if (short.length) expected.card_payment_shortfall = ['shortfall_total', short.reduce((s, { a, payment }) => s - a.balance - payment.balance, 0)];
    const last = r.months[r.months.length - 1];
    if (last.to_be_budgeted !== 0) expected.ready_to_assign = ['ready_to_assign', last.to_be_budgeted];
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['uncategorized', 'overspent', 'ready_to_assign']));
    for (const [k, [field, value]] of Object.entries(expected)) {
      expect(kind(full, k), k).toMatchObject({ [field]: value, [`${field}_formatted`]: usd(value) });
    }
    // The others: the total of every item the kind lists when asked for alone.
    const sums: Record<string, [string, (e: any) => number]> = {
      underfunded: ['underfunded_total', (e) => e.underfunded],
      upcoming_shortfall: ['shortfall_total', (e) => -e.lowest_balance],
      price_increase: ['increase_total', (e) => e.new - e.old],
    };
    for (const [k, [field, of]] of Object.entries(sums)) {
      if (!kind(full, k)) continue;
      const all = ok(await h.call('needs_attention', { kind: k, detail: 'full' })).attention[0].examples;
      const value = all.reduce((s: number, e: any) => s + of(e), 0);
      expect(kind(full, k), k).toMatchObject({ [field]: value, [`${field}_formatted`]: usd(value) });
    }
    // Every money number of the answer, compact and full, has its formatted text beside it; no `_milliunits` names.
    const compact = ok(await h.call('needs_attention'));
    for (const res of [full, compact]) {
      const walk = (o: any, path: string): void => {
        if (Array.isArray(o)) return o.forEach((x, i) => walk(x, `${path}[${i}]`));
        if (!o || typeof o !== 'object') return;
        for (const [key, v] of Object.entries(o)) {
          // cover_with_move_money's rows are move_money's own arguments (its input takes `amount_milliunits`).
          if (!path.includes('.cover_with_move_money[')) expect(key, path).not.toMatch(/_milliunits$/);
          if (typeof v === 'number' && key in MONEY_OF) expect(typeof o[`${key}_formatted`], `${path}.${key}`).toBe('string');
          walk(v, `${path}.${key}`);
        }
      };
      walk(res.attention, 'attention');
    }
    // The overview's first items: each named with its figure's text.
    expect(compact.attention.every((k: any) => k.kind === 'ready_to_assign' || Object.values(k.first).every((t: any) => /\$\d|last /.test(t)))).toBe(true);
  });

  it('full rows of transactions are lean: id, date, account, payee, category, amount and memo, as the API has them', async () => {
    for (const k of ['unapproved', 'uncategorized']) {
      const rows = ok(await h.call('needs_attention', { kind: k, detail: 'full' })).attention[0]?.examples ?? [];
      expect(rows.length, k).toBeGreaterThan(0);
      for (const row of rows) {
        const t = r.transactions.find((x) => x.id === row.id);
        const lean = {
          id: t.id,
          date: t.date,
          account_name: t.account_name,
          payee_name: t.payee_name,
          category_name: t.category_name,
          amount: t.amount,
          memo: t.memo,
        };
        const expected = Object.fromEntries(Object.entries(lean).filter(([, v]) => v !== null && v !== undefined));
        expect(row, k).toEqual({ ...expected, amount_formatted: usd(t.amount) });
      }
    }
  });
});

/** The money fields needs_attention's kinds and items write (each needs its `_formatted`). */
const MONEY_OF: Record<string, true> = Object.fromEntries(
  [
    'amount',
    'total',
    'transfers_total',
    'excluding_transfers_total',
    'overspent',
    'credit_overspent',
    'overspent_total',
    'underfunded',
    'underfunded_total',
    'balance',
    'payment_available',
    'shortfall',
    'shortfall_total',
    'carried',
    'lowest_balance',
    'cleared_balance',
    'old',
    'new',
    'increase_total',
    'ready_to_assign',
  ].map((k) => [k, true]),
);
