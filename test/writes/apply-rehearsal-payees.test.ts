/**
 * apply_rehearsal and a payee made in the rehearsal (issue 60 item 4): a purchase logged there at a
 * new payee's name is applied, making the payee in YNAB by name as any create does; a later change
 * naming that payee by its rehearsal id (a second purchase, an edit of a transaction YNAB holds)
 * applies with the id YNAB gave it. A plays YNAB, B holds the rehearsal (rehearsal-pair.ts); what
 * each holds is read from its raw API.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok } from '../helpers/mcp.js';
import { rehearsalPair, write, type RehearsalPair } from './rehearsal-pair.js';

let pair: RehearsalPair;
beforeAll(async () => {
  pair = await rehearsalPair();
});
afterAll(() => pair?.close());

it('creates the payee named in the rehearsal by name, and maps its rehearsal id for the changes after', async () => {
  const { A, B, budgetId } = pair;
  const bud = { budget_id: budgetId };
  const raw = async (h: typeof A, path: string) => (await h.sb.get(`/budgets/${budgetId}${path}`)).body.data;
  const { transactions } = await raw(A, '/transactions');
  const plain = transactions.filter(
    (t: any) =>
      !t.deleted &&
      !t.transfer_account_id &&
      !t.subtransactions.length &&
      t.amount < 0 &&
      t.category_id &&
      t.category_name !== 'Inflow: Ready to Assign' &&
      !/starting balance/i.test(t.payee_name ?? ''),
  );
  const [base, other] = plain;
  const today = new Date().toISOString().slice(0, 10);
  const NAME = 'Corner Bakery Opened Today';
  expect((await raw(A, '/payees')).payees.some((p: any) => p.name === NAME)).toBe(false);

  const first = await write(B, 'create_transactions', {
    ...bud,
    transactions: [{ account_id: base.account_id, date: today, amount: -4.5, payee_name: NAME, category_id: base.category_id, memo: 'new payee' }],
  });
  const madePayee = (await raw(B, '/payees')).payees.find((p: any) => p.name === NAME);
  expect(madePayee).toBeTruthy();
  const second = await write(B, 'create_transactions', {
    ...bud,
    transactions: [{ account_id: base.account_id, date: today, amount: -7.25, payee_id: madePayee.id, category_id: base.category_id, memo: 'new payee again' }],
  });
  const edit = await write(B, 'update_transaction', { ...bud, transaction_id: other.id, payee_id: madePayee.id });

  const preview = ok(await A.call('apply_rehearsal', bud));
  expect(preview.left_out ?? []).toEqual([]);
  expect(preview.applies.map((c: any) => c.change_id)).toEqual([first.change_id, second.change_id, edit.change_id]);
  const applied = ok(await A.call('apply_rehearsal', { ...bud, confirm_token: preview.confirm_token }));
  expect(applied.applied).toBe(3);

  const made = (await raw(A, '/payees')).payees.filter((p: any) => p.name === NAME && !p.deleted);
  expect(made).toHaveLength(1);
  const realPayee = made[0].id;
  expect(applied.ids[madePayee.id]).toBe(realPayee);
  const after = (await raw(A, '/transactions')).transactions.filter((t: any) => !t.deleted);
  expect(
    after
      .filter((t: any) => t.memo === 'new payee' || t.memo === 'new payee again')
      .map((t: any) => [t.memo, t.amount, t.payee_id])
      .sort((a: any, b: any) => b[1] - a[1]),
  ).toEqual([
    ['new payee', -4500, realPayee],
    ['new payee again', -7250, realPayee],
  ]);
  expect(after.find((t: any) => t.id === other.id).payee_id).toBe(realPayee);
  // The preview said so; an undo of the apply says the payee stays (YNAB's API cannot delete one).
  expect(preview.notices.join(' ')).toContain(`the payees the rehearsal made: "${NAME}"`);
  const undo = ok(await A.call('undo_change', { ...bud, change_id: applied.change_id }));
  expect(JSON.stringify(undo.notices)).toContain('1 payee the change made stays');
});
