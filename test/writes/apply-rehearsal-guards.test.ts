/**
 * apply_rehearsal's guards (issue 60 item 4): a purchase made in the rehearsal that is already in
 * YNAB is held, not doubled, and the edit of it made later in the rehearsal is left out with it;
 * a list of change ids applies only those; a read-only server and a read-only token refuse the
 * apply with what to do, and nothing is sent to YNAB. A plays YNAB, B holds the rehearsal
 * (rehearsal-pair.ts); what A holds is read from its raw API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../helpers/mcp.js';
import { rehearsalPair, write, type RehearsalPair } from './rehearsal-pair.js';

let pair: RehearsalPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

/** An on-budget account of A's budget and a payee with an outflow there, for a purchase. */
async function purchaseIn(p: RehearsalPair) {
  const { transactions } = (await p.A.sb.get(`/budgets/${p.budgetId}/transactions`)).body.data;
  const t = transactions.find(
    (x: any) =>
      !x.deleted &&
      x.amount < 0 &&
      x.payee_id &&
      !/starting balance/i.test(x.payee_name ?? '') &&
      x.category_id &&
      !x.transfer_account_id &&
      !x.subtransactions.length,
  );
  const today = new Date().toISOString().slice(0, 10);
  // amount in milliunits for the raw API; the tool takes it as amount_milliunits.
  return { other: t, item: { account_id: t.account_id, date: today, amount: -23450, payee_id: t.payee_id, category_id: t.category_id } };
}

describe('apply_rehearsal guards', () => {
  it('holds a purchase already in YNAB (and the later edit of it), and applies only the change ids named', async () => {
    pair = await rehearsalPair();
    const { A, B, budgetId } = pair;
    const bud = { budget_id: budgetId };
    const { other, item } = await purchaseIn(pair);
    const made = await write(B, 'create_transactions', {
      ...bud,
      transactions: [{ ...item, amount: undefined, amount_milliunits: item.amount, memo: 'in the rehearsal' }],
    });
    const madeId = made.transactions?.[0]?.id ?? made.transaction_ids?.[0];
    const edited = await write(B, 'update_transaction', { ...bud, transaction_id: madeId, memo: 'edited in the rehearsal' });
    const memo = await write(B, 'update_transaction', { ...bud, transaction_id: other.id, memo: 'kept from the rehearsal' });
    // Meanwhile the same purchase is logged in YNAB itself.
    expect((await A.sb.call('POST', `/budgets/${budgetId}/transactions`, { transaction: item })).status).toBe(201);

    const all = ok(await A.call('apply_rehearsal', bud));
    expect(all.left_out.map((l: any) => l.change_id)).toEqual([made.change_id, edited.change_id]);
    expect(all.left_out[0].why).toContain('held as a likely duplicate');
    expect(all.left_out[1].why).toContain('made or changed by a change left out');
    expect(all.applies.map((c: any) => c.change_id)).toEqual([memo.change_id]);

    const some = ok(await A.call('apply_rehearsal', { ...bud, change_ids: [memo.change_id] }));
    const done = ok(await A.call('apply_rehearsal', { ...bud, change_ids: [memo.change_id], confirm_token: some.confirm_token }));
    expect(done.applied).toBe(1);
    const { transactions } = (await A.sb.get(`/budgets/${budgetId}/transactions`)).body.data;
    expect(transactions.filter((t: any) => !t.deleted && t.amount === item.amount && t.date === item.date && t.account_id === item.account_id)).toHaveLength(1);
    expect(transactions.find((t: any) => t.id === other.id).memo).toBe('kept from the rehearsal');

    const unknown = await A.call('apply_rehearsal', { ...bud, change_ids: ['ch-nope'] });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toContain('ch-nope is not a change of this rehearsal');
  });

  it("leaves out a change to what YNAB changed since the copy, even where YNAB's change was put back (its server_knowledge)", async () => {
    pair = await rehearsalPair();
    const { A, B, budgetId } = pair;
    const { other } = await purchaseIn(pair);
    const rehearsed = await write(B, 'update_transaction', { budget_id: budgetId, transaction_id: other.id, memo: 'rehearsed' });
    const path = `/budgets/${budgetId}/transactions/${other.id}`;
    expect((await A.sb.call('PUT', path, { transaction: { memo: 'changed in YNAB' } })).status).toBe(200);
    expect((await A.sb.call('PUT', path, { transaction: { memo: other.memo } })).status).toBe(200);
    const res = ok(await A.call('apply_rehearsal', { budget_id: budgetId }));
    expect(res.applied).toBe(0);
    expect(res.left_out.map((l: any) => l.change_id)).toEqual([rehearsed.change_id]);
    expect(res.left_out[0].why).toContain('was changed in YNAB since the copy was taken');
  });

  it.each([
    ['a read-only server', { flags: { readOnly: true } }],
    // A token's scope is known as granted (OAuth) or once YNAB refused a change (403.3), as the server learns it.
    ['a read-only token', { token: 'read-only' as const, scope: 'read-only' as const }],
  ])('on %s the apply is refused with what to do, and nothing is sent', async (_what, opts) => {
    pair = await rehearsalPair(opts);
    const { A, B, budgetId, requests } = pair;
    const { other } = await purchaseIn(pair);
    await write(B, 'update_transaction', { budget_id: budgetId, transaction_id: other.id, memo: 'rehearsed' });
    ok(await A.call('list_accounts', { budget_id: budgetId })); // connected: the grant's scope is known
    requests.length = 0;
    const res = await A.call('apply_rehearsal', { budget_id: budgetId });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/read-only/i);
    expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
    expect((await A.sb.get(`/budgets/${budgetId}/transactions/${other.id}`)).body.data.transaction.memo).toBe(other.memo);
  });
});
