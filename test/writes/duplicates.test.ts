/**
 * The duplicate guard of creates, through a real MCP client against the sandbox: a transaction
 * like one already in the account (same amount, within 3 days, same or similar payee) is held
 * with duplicate_candidates and nothing is created; allow_duplicate: true creates it anyway.
 * Other amounts, other accounts, dates 4 days apart, other payees and creates with an import_id
 * (which YNAB deduplicates itself) go through. create_transfer is guarded the same way. The
 * sandbox's own records say what was created; "similar" is checked on its own too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { payeeWords, similarPayee } from '../../src/writes/pipeline/duplicates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'duplicates' } });
});
afterAll(() => h.close());

const live = () => [...h.sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted);
const create = (t: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  h.call('create_transactions', { transactions: [{ account_id: 'Everyday Checking', date: today, ...t }], ...extra });

describe('a create like a transaction already there', () => {
  it('is held with the candidates, creating nothing; allow_duplicate: true creates it', async () => {
    const first = ok(await create({ amount: -41.17, payee_name: "Trader Joe's", memo: 'first' }));
    const id = first.transaction_ids[0];
    const n = live().length;
    const held = ok(await create({ amount: -41.17, payee_name: 'TRADER JOES #552', date: addDays(today, -2) }));
    expect(held.held).toBe('duplicate');
    expect(held.transaction_ids).toBeUndefined();
    const rawFirst = (await h.sb.get(`/budgets/${h.sb.state.budgets[0]!.id}/transactions/${id}`)).body.data.transaction;
    expect(held.duplicate_candidates).toEqual([
      {
        index: 0,
        candidates: [
          expect.objectContaining({
            id,
            date: rawFirst.date,
            amount_formatted: rawFirst.amount_formatted,
            payee_name: rawFirst.payee_name,
            account_name: rawFirst.account_name,
            memo: 'first',
          }),
        ],
      },
    ]);
    expect(held.message).toMatch(/^Nothing was created: .* allow_duplicate: true/);
    expect(live()).toHaveLength(n);

    const again = ok(await create({ amount: -41.17, payee_name: 'TRADER JOES #552', date: addDays(today, -2) }, { allow_duplicate: true }));
    expect(again.transaction_ids).toHaveLength(1);
    expect(live()).toHaveLength(n + 1);
  });

  it('in a batch, names which items look like duplicates and creates none of the batch', async () => {
    ok(await create({ amount: -13.5, payee_name: 'Corner Bakery' }));
    const n = live().length;
    const held = ok(
      await h.call('create_transactions', {
        transactions: [
          { account_id: 'Everyday Checking', date: today, amount: -2.25, payee_name: 'Something New' },
          { account_id: 'Everyday Checking', date: today, amount: -13.5, payee_name: 'corner bakery' },
        ],
      }),
    );
    expect(held.duplicate_candidates.map((d: any) => d.index)).toEqual([1]);
    expect(held.message).toMatch(/1 of the 2 transactions/);
    expect(live()).toHaveLength(n);
  });

  it('goes through when the amount, the account, the payee or the date (4 days) differ, or it carries an import_id', async () => {
    const shell = ok(await create({ amount: -60, payee_name: 'Shell', date: addDays(today, -5) })).transaction_ids[0];
    const n = live().length;
    for (const t of [
      { amount: -60.01, payee_name: 'Shell', date: addDays(today, -5) },
      { amount: -60, payee_name: 'Shell', date: addDays(today, -1) }, // 4 days after
      { amount: -60, payee_name: 'Chevron', date: addDays(today, -5) },
      { amount: -60, payee_name: 'Shell', date: addDays(today, -5), account_id: 'Wallet' },
      { amount: -60, payee_name: 'Shell', date: addDays(today, -5), import_id: 'dup-guard-import-1' },
    ]) {
      const res = ok(await create(t));
      expect(res.held, JSON.stringify(t)).toBeUndefined();
    }
    // Four new ones; the one with an import_id went to YNAB, whose import matching merged it
    // into the hand-entered Shell transaction (same account and amount, within 10 days).
    expect(live()).toHaveLength(n + 4);
    expect((await h.sb.get(`/budgets/${h.sb.state.budgets[0]!.id}/transactions/${shell}`)).body.data.transaction.import_id).toBe('dup-guard-import-1');
  });

  it('holds a transfer like one already made; allow_duplicate makes it again, both sides', async () => {
    const args = { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 33.33 };
    ok(await h.call('create_transfer', args));
    const n = live().length;
    const held = ok(await h.call('create_transfer', args));
    expect(held.held).toBe('duplicate');
    expect(held.duplicate_candidates[0]).toMatchObject({
      amount_formatted: '-$33.33',
      account_name: 'Everyday Checking',
      payee_name: 'Transfer : Rainy Day Savings',
    });
    expect(live()).toHaveLength(n);
    ok(await h.call('create_transfer', { ...args, allow_duplicate: true }));
    expect(live()).toHaveLength(n + 2);
  });
});

describe('similar payees', () => {
  it('are the same words, words that start the other, or a slip per five letters', () => {
    expect(payeeWords("TRADER JOE'S #552 PORTLAND OR")).toEqual(['trader', 'joes', 'portland', 'or']);
    expect(similarPayee("Trader Joe's", 'TRADER JOES #552')).toBe(true);
    expect(similarPayee('Amazon', 'Amazon Mktp US')).toBe(true);
    expect(similarPayee('AMAZON.COM', 'Amazon')).toBe(true);
    expect(similarPayee('Starbucks', 'Starbuck')).toBe(true);
    expect(similarPayee('Café Rouge', 'cafe rouge')).toBe(true);
    expect(similarPayee(null, null)).toBe(true);
    expect(similarPayee('Costco', 'Costa Coffee')).toBe(false);
    expect(similarPayee('Shell', 'Chevron')).toBe(false);
    expect(similarPayee('BP', 'BJ')).toBe(false);
    expect(similarPayee('Netflix', null)).toBe(false);
  });
});
