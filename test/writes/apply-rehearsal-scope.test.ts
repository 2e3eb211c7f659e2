/**
 * apply_rehearsal with a personal access token whose scope is not known (issue 60 item 4): YNAB's
 * API says a token is read-only only by refusing a change (403.3), and a personal token's grant
 * records no scope. The preview says so; a confirm on such a token that turns out read-only sends
 * one write, which YNAB refuses, and nothing else: nothing is changed, the answer says why and what
 * to do, and from then on the server knows, so a second apply is refused before anything is sent.
 * A plays YNAB, B holds the rehearsal (rehearsal-pair.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok } from '../helpers/mcp.js';
import { rehearsalPair, write, type RehearsalPair } from './rehearsal-pair.js';

let pair: RehearsalPair;
beforeAll(async () => {
  pair = await rehearsalPair({ token: 'read-only' }); // a personal token: no scope recorded
});
afterAll(() => pair?.close());

it('a token of unknown scope: the preview says so; a read-only one is refused at the first write, nothing changed, and known after', async () => {
  const { A, B, budgetId, requests } = pair;
  const bud = { budget_id: budgetId };
  const { transactions } = (await A.sb.get(`/budgets/${budgetId}/transactions`)).body.data;
  const [t, u] = transactions.filter((x: any) => !x.deleted && !x.transfer_account_id && !x.subtransactions.length);
  await write(B, 'update_transaction', { ...bud, transaction_id: t.id, memo: 'rehearsed' });
  const today = new Date().toISOString().slice(0, 10);
  await write(B, 'create_transactions', {
    ...bud,
    transactions: [{ account_id: u.account_id, date: today, amount: -3.21, payee_id: u.payee_id, memo: 'rehearsed purchase' }],
  });

  const preview = ok(await A.call('apply_rehearsal', bud));
  expect(preview.notices.join(' ')).toContain("this token's access (read-only or full) is not known");
  requests.length = 0;
  const res = await A.call('apply_rehearsal', { ...bud, confirm_token: preview.confirm_token });
  expect(res.isError).toBe(true);
  expect(res.content[0].text).toMatch(/read-only/);
  expect(res.content[0].text).toMatch(/Nothing was changed/);
  expect(requests.filter((r) => !r.startsWith('GET '))).toHaveLength(1); // the one write YNAB refused
  const after = (await A.sb.get(`/budgets/${budgetId}/transactions`)).body.data.transactions;
  expect(after.find((x: any) => x.id === t.id).memo).toBe(t.memo);
  expect(after.filter((x: any) => x.memo === 'rehearsed purchase')).toEqual([]);

  requests.length = 0;
  const again = await A.call('apply_rehearsal', bud);
  expect(again.isError).toBe(true);
  expect(again.content[0].text).toMatch(/read-only/);
  expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
});
