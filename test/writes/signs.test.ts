/**
 * Signs no one has to guess (issue 57, item 5), through a real MCP client against the sandbox, in
 * "Haushalt Berlin" (EUR), on three seeds and two dates (the middle of a month and the first of
 * one), every fact checked on the sandbox's raw API:
 *  - an amount written as text ("12,50", "12,50 €") is answered with the signed forms: a purchase
 *    is -12.50, an income or refund 12.50 (where the amount has a sign: not create_transfer's);
 *  - an inflow at a payee whose transactions have all been outflows (Lidl, only ever paid) is held
 *    with one line that names it a refund, and nothing is written; allow_inflow: true writes it;
 *    an outflow there, an inflow at a payee with inflows before, and at a new payee, are not held.
 *    create_scheduled_transaction is held the same way.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, type Raw } from '../insights/raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
/** The middle of this month, and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'signs-a', 'signs-b'];
const BUDGET = 'Haushalt Berlin';

/** The budget's live transactions as the API has them now. */
async function liveTransactions(h: McpHarness, r: Raw): Promise<any[]> {
  return (await h.sb.get(`${r.b}/transactions?since_date=1990-01-01`)).body.data.transactions.filter((t: any) => !t.deleted);
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('inflows at a payee only ever paid, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  let lidl: any;
  const create = (t: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    h.call('create_transactions', { budget_id: BUDGET, transactions: [{ account_id: 'Bargeld', date, ...t }], ...extra });

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb, BUDGET);
    lidl = r.payees.find((p) => p.name === 'Lidl');
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('Lidl has only ever been paid (the raw API)', () => {
    const paid = r.transactions.filter((t) => t.payee_id === lidl.id);
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.every((t) => t.amount < 0)).toBe(true);
  });

  // Before the refund below is written: after it, Lidl has an inflow.
  it('holds a scheduled inflow at Lidl the same way; allow_inflow: true schedules it', async () => {
    const args = { budget_id: BUDGET, account_id: 'Bargeld', date: addDays(date, 3), amount: 12.5, payee_name: 'Lidl', frequency: 'monthly' };
    const count = async () => (await h.sb.get(`${r.b}/scheduled_transactions`)).body.data.scheduled_transactions.filter((s: any) => !s.deleted).length;
    const before = await count();
    const held = ok(await h.call('create_scheduled_transaction', args));
    expect(held).toMatchObject({ held: 'inflow', inflow_candidates: [{ payee_name: 'Lidl', amount: 12_500 }] });
    expect(held.message).toMatch(
      /^Nothing was created: an inflow of 12,50€ from "Lidl", whose \d+ transactions have all been outflows\. If this is a refund from Lidl, call again with allow_inflow: true/,
    );
    expect(await count()).toBe(before);
    ok(await h.call('create_scheduled_transaction', { ...args, allow_inflow: true }));
    expect(await count()).toBe(before + 1);
  });

  it('holds an inflow of 12.50 at Lidl with one line naming a refund, writing nothing; allow_inflow: true writes it', async () => {
    const paid = r.transactions.filter((t) => t.payee_id === lidl.id).length;
    const before = await liveTransactions(h, r);
    for (const payee of [{ payee_name: 'Lidl' }, { payee_name: 'LIDL' }, { payee_id: lidl.id }]) {
      const held = ok(await create({ amount: 12.5, ...payee }));
      expect(held, JSON.stringify(payee)).toMatchObject({
        held: 'inflow',
        inflow_candidates: [{ index: 0, payee_id: lidl.id, payee_name: 'Lidl', amount: 12_500, amount_formatted: '12,50€', outflows: paid }],
      });
      expect(held.message).toBe(
        `Nothing was created: transactions[0] is an inflow of 12,50€ from "Lidl", whose ${paid} transactions have all been outflows. ` +
          'If this is a refund from Lidl, call again with allow_inflow: true; if it is a purchase, give amount -12.50.',
      );
      expect(held.message).not.toContain('\n');
      expect(held.transaction_ids).toBeUndefined();
    }
    // One of several: the call is held whole, naming which.
    const two = ok(
      await h.call('create_transactions', {
        budget_id: BUDGET,
        transactions: [
          { account_id: 'Bargeld', date, amount: -3.2, payee_name: 'Lidl' },
          { account_id: 'Bargeld', date, amount: 12.5, payee_name: 'Lidl' },
        ],
      }),
    );
    expect(two).toMatchObject({ held: 'inflow', inflow_candidates: [{ index: 1, payee_name: 'Lidl' }] });
    expect(two.message).toMatch(/^Nothing was created: transactions\[1\] is an inflow of 12,50€ from "Lidl"/);
    expect(await liveTransactions(h, r)).toEqual(before);

    const made = ok(await create({ amount: 12.5, payee_name: 'Lidl' }, { allow_inflow: true }));
    expect(made.transaction_ids).toHaveLength(1);
    const after = await liveTransactions(h, r);
    expect(after).toHaveLength(before.length + 1);
    expect(after.find((t) => t.id === made.transaction_ids[0])).toMatchObject({ amount: 12_500, payee_id: lidl.id, date });
  });

  it('does not hold an outflow at Lidl, an inflow at a payee with inflows before, or an inflow at a new payee', async () => {
    const before = (await liveTransactions(h, r)).length;
    const outflow = ok(await create({ amount: -12.5, payee_name: 'Lidl' }));
    expect(outflow.held).toBeUndefined();
    // A payee with an inflow before (the salary's), by the raw API; not the opening balances' payee.
    const received = r.payees.find(
      (p) => !p.transfer_account_id && p.name !== 'Starting Balance' && r.transactions.some((t) => t.payee_id === p.id && t.amount > 0),
    );
    expect(received, 'a payee with an inflow').toBeTruthy();
    const back = ok(await create({ amount: 12.5, payee_name: received.name }));
    expect(back.held).toBeUndefined();
    const fresh = ok(await create({ amount: 12.5, payee_name: 'Flohmarkt am Mauerpark' }));
    expect(fresh.held).toBeUndefined();
    const after = await liveTransactions(h, r);
    expect(after).toHaveLength(before + 3);
    const amounts = [outflow, back, fresh].map((x) => after.find((t) => t.id === x.transaction_ids[0])?.amount);
    expect(amounts).toEqual([-12_500, 12_500, 12_500]);
  });
});

describe('an amount written as text', () => {
  let h: McpHarness;
  let r: Raw;
  const today = new Date().toISOString().slice(0, 10);
  const errorOf = async (tool: string, args: Record<string, unknown>) => {
    const res = await h.call(tool, { budget_id: BUDGET, ...args });
    expect(res.isError, JSON.stringify(res.structuredContent ?? {}).slice(0, 300)).toBe(true);
    return String(res.content[0].text);
  };

  beforeAll(async () => {
    h = await mcpHarness({ sandbox: { seed: 'signs' } });
    r = await raw(h.sb, BUDGET);
  });
  afterAll(() => h.close());

  it.each([
    ['12,50', '-12.50 or 12.50', '-12.50', '12.50'],
    ['12,50 €', '-12.50 or 12.50', '-12.50', '12.50'],
    ['-12,5', '-12.5', '-12.5', '12.5'],
  ])('%s: says a purchase is negative and an income or refund positive, in the user number; nothing written', async (given, how, out, into) => {
    const before = await liveTransactions(h, r);
    const text = await errorOf('create_transactions', { transactions: [{ account_id: 'Bargeld', date: today, amount: given, payee_name: 'Lidl' }] });
    expect(text).toContain(
      `transactions.0.amount: give ${how} as a number, not the text ${JSON.stringify(given)}: a purchase is ${out}; an income or refund is ${into}`,
    );
    expect(await liveTransactions(h, r)).toEqual(before);
  });

  it('says so for every amount that has a sign: update_transaction, a split line, a scheduled transaction; not for a transfer', async () => {
    const id = r.transactions.find((t) => !t.transfer_account_id && !(t.subtransactions ?? []).length).id;
    expect(await errorOf('update_transaction', { transaction_id: id, amount: '12,50' })).toContain('amount: give -12.50 or 12.50 as a number');
    const lines = [
      { amount: '12,50', category_id: null },
      { amount: -1, category_id: null },
    ];
    expect(await errorOf('split_transaction', { transaction_id: id, subtransactions: lines })).toContain(
      'subtransactions.0.amount: give -12.50 or 12.50 as a number, not the text "12,50": a purchase is -12.50; an income or refund is 12.50',
    );
    expect(
      await errorOf('create_scheduled_transaction', { account_id: 'Bargeld', date: addDays(today, 3), amount: '12,50 €', frequency: 'monthly' }),
    ).toContain('a purchase is -12.50; an income or refund is 12.50');
    // A transfer's amount is above zero, its direction given by from and to: no sign to explain.
    const transfer = await errorOf('create_transfer', { from_account_id: 'Girokonto', to_account_id: 'Bargeld', amount: '12,50' });
    expect(transfer).toContain('amount: give 12.50 as a number, not the text "12,50"');
    expect(transfer).not.toContain('purchase');
  });
});
