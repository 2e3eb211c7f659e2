/**
 * apply_rehearsal end to end (issue 60 items 4 and 6): sandbox A plays YNAB; its budget's export
 * (GET /budgets/{id}) is loaded into sandbox B, the rehearsal, where a real MCP client makes six
 * kinds of change (a logged purchase then edited, a recategorization by filter, a split,
 * move_money, fund_targets for next month, apply_rules to the past) and undoes one. One of the
 * touched transactions is then changed directly in A. apply_rehearsal on a server pointed at A
 * (given B's undo journal and the export's server_knowledge) names the conflict with both values
 * and leaves it out, applies the rest as one change (A's raw answers equal B's for every entity
 * applied), and undo_change on A puts every entity back as it was. Figures are read from the two
 * sandboxes' raw API, never from the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type McpHarness } from '../helpers/mcp.js';
import { rehearsalPair, write, type RehearsalPair } from './rehearsal-pair.js';
import type { RehearsalSource } from '../../src/writes/pipeline/pipeline.js';

/** A transaction's fields a person sees, from a raw answer (lines in a stable order). */
function shape(t: any): Record<string, unknown> {
  const lines = (t.subtransactions ?? [])
    .filter((x: any) => !x.deleted)
    .map((x: any) => [x.amount, x.category_id, x.memo ?? null])
    .sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return {
    account_id: t.account_id,
    date: t.date,
    amount: t.amount,
    payee_id: t.payee_id,
    category_id: lines.length ? null : t.category_id,
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
    flag_color: t.flag_color || null,
    lines,
    deleted: t.deleted ?? false,
  };
}

/** The category fund_targets assigned to in the rehearsal (its journal's month category). */
const fundedCategory = (journal: { tool: string; entities: { kind: string; id: string }[] }[]) =>
  journal
    .find((c) => c.tool === 'fund_targets')!
    .entities.find((e) => e.kind === 'month_category')!
    .id.split('/')[1];

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('apply_rehearsal: a rehearsal on a copy, applied to the real budget', () => {
  let pair: RehearsalPair;
  let A: McpHarness;
  let B: McpHarness;
  let budgetId: string;
  let requests: string[];
  let source: RehearsalSource;

  beforeAll(async () => {
    pair = await rehearsalPair();
    ({ A, B, budgetId, requests, source } = pair);
  });
  afterAll(() => pair?.close());

  it('applies what was kept as one change, leaves out the conflict naming both values, and undo_change restores the start', async () => {
    const raw = async (h: McpHarness, path: string) => (await h.sb.get(`/budgets/${budgetId}${path}`)).body.data;
    const { transactions } = await raw(A, '/transactions');
    const { category_groups: groups } = await raw(A, '/categories');
    const { payees } = await raw(A, '/payees');
    const { accounts } = await raw(A, '/accounts');
    const onBudget = new Set(accounts.filter((a: any) => a.on_budget && !a.closed).map((a: any) => a.id));
    const cats = groups
      .filter((g: any) => !g.hidden && g.name !== 'Internal Master Category' && g.name !== 'Credit Card Payments')
      .flatMap((g: any) => g.categories.filter((c: any) => !c.hidden && !c.deleted && c.name !== 'Inflow: Ready to Assign'));
    const today = new Date().toISOString().slice(0, 10);
    const rta = groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Inflow: Ready to Assign')?.id;
    const plain = transactions.filter(
      (t: any) =>
        t.category_id !== rta &&
        !/starting balance/i.test(t.payee_name ?? '') &&
        !t.deleted &&
        onBudget.has(t.account_id) &&
        !t.transfer_account_id &&
        !t.subtransactions.length &&
        t.amount < 0 &&
        t.category_id &&
        t.payee_id,
    );
    const byPayee = new Map<string, any[]>();
    for (const t of plain) byPayee.set(t.payee_id, [...(byPayee.get(t.payee_id) ?? []), t]);
    const [p1, p2, p3] = [...byPayee.entries()].filter(([, ts]) => ts.length >= 2).map(([id]) => id) as [string, string, string];
    expect(p3).toBeDefined();
    const name = (id: string) => payees.find((p: any) => p.id === id).name;
    // c1: money available this month, which next month's reset_available takes back out.
    const thisMonth = new Map((await raw(A, '/months/current')).month.categories.map((c: any) => [c.id, c.balance]));
    const c1 = cats.find((c: any) => (thisMonth.get(c.id) as number) > 0);
    const [c2, c3, c4] = cats.filter((c: any) => c !== c1 && !byPayee.get(p1)!.some((t) => t.category_id === c.id));

    // The rehearsal: six kinds of change, one edit of what it made, one undone.
    const bud = { budget_id: budgetId };
    const nextMonth = `${addDays(`${today.slice(0, 7)}-28`, 7).slice(0, 7)}-01`;
    await write(B, 'fund_targets', { ...bud, option: 'underfunded', month: nextMonth });
    const made = await write(B, 'create_transactions', {
      ...bud,
      transactions: [
        { account_id: plain[0].account_id, date: today, amount: -12.34, payee_id: p3, category_id: c1.id, memo: 'rehearsed' },
        { account_id: plain[0].account_id, date: today, amount: -56.78, payee_id: p2, category_id: c1.id, memo: 'rehearsed too' },
      ],
    });
    const madeId = made.transactions?.[0]?.id ?? made.transaction_ids?.[0];
    expect(madeId).toBeTruthy();
    await write(B, 'update_transaction', { ...bud, transaction_id: madeId, memo: 'rehearsed, then edited' });
    const recat = await write(B, 'recategorize_transactions', {
      ...bud,
      payee_id: p1,
      account_id: byPayee.get(p1)![0].account_id,
      direction: 'outflow',
      new_category_id: c2.id,
    });
    const splitTarget = byPayee.get(p2)![0];
    await write(B, 'split_transaction', {
      ...bud,
      transaction_id: splitTarget.id,
      subtransactions: [
        { amount_milliunits: splitTarget.amount + 1000, category_id: c3.id },
        { amount_milliunits: -1000, category_id: c4.id },
      ],
    });
    const moved = await write(B, 'move_money', { ...bud, from_category_id: c3.id, to_category_id: c4.id, amount: 1, allow_overspend: true });
    ok(await B.call('set_rule', { ...bud, match: { payee_id: p3 }, set: { flag_color: 'purple' } }));
    await write(B, 'apply_rules', { ...bud, since_date: addDays(today, -400) });
    await write(B, 'undo_change', { ...bud, change_id: moved.change_id });
    expect(recat.change_id, JSON.stringify(recat).slice(0, 600)).toBeTruthy();

    // Meanwhile, in YNAB: the transaction the rehearsal split gets a memo.
    const direct = await A.sb.call('PUT', `/budgets/${budgetId}/transactions/${splitTarget.id}`, { transaction: { memo: 'changed in YNAB' } });
    expect(direct.status).toBe(200);

    // The entities the kept changes touched, from B's journal; A's raw state of each before the apply.
    const journal = await source.changes();
    const kept = journal.filter((c) => c.undo?.state !== 'undone' && !c.undoes && c.tool !== 'split_transaction');
    expect(kept.map((c) => c.tool).sort()).toEqual(['apply_rules', 'create_transactions', 'fund_targets', 'recategorize_transactions', 'update_transaction']);
    const touched = new Map<string, string>(); // kind:id in B
    for (const c of kept) for (const e of c.entities) if (!e.linked) touched.set(`${e.kind}:${e.id}`, e.kind);
    const startOf = async (h: McpHarness, key: string) => {
      const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      if (kind === 'transaction') {
        const res = await h.sb.get(`/budgets/${budgetId}/transactions/${id}`);
        return res.status === 200 ? shape(res.body.data.transaction) : null;
      }
      const [month, cat] = id.split('/');
      // A month YNAB does not hold yet has nothing assigned.
      const res = await h.sb.get(`/budgets/${budgetId}/months/${month}/categories/${cat}`);
      return { budgeted: res.status === 404 ? 0 : res.body.data.category.budgeted };
    };
    const before = new Map<string, unknown>();
    for (const key of touched.keys()) before.set(key, await startOf(A, key));
    const splitBefore = await startOf(A, `transaction:${splitTarget.id}`);

    requests.length = 0;
    const preview = ok(await A.call('apply_rehearsal', bud));
    const previewRequests = requests.length;
    expect(preview.confirm_token).toBeTruthy();
    const left = preview.left_out ?? preview.details?.left_out;
    expect(left).toHaveLength(1);
    expect(left[0].tool).toBe('split_transaction');
    expect(left[0].why).toContain('"changed in YNAB"');
    expect(left[0].why).toMatch(/the copy had none|the copy had/);
    const applied = ok(await A.call('apply_rehearsal', { ...bud, confirm_token: preview.confirm_token }));
    const applyRequests = requests.length - previewRequests;
    // What the apply costs: the preview reads the budget (a full export for a server just started)
    // and the delta since the copy; the confirm reads both again, sends one request for all the
    // transactions' updates, one per month's category, one per create, and reads back once.
    const sent = requests.slice(previewRequests);
    expect(requests.slice(0, previewRequests)).toEqual([`GET /plans/${budgetId}`, `GET /plans/${budgetId}`]);
    expect(sent.filter((r) => !r.startsWith('GET ')).sort()).toEqual([
      `PATCH /plans/${budgetId}/months/${nextMonth}/categories/${fundedCategory(journal)}`,
      `PATCH /plans/${budgetId}/transactions`,
      `POST /plans/${budgetId}/transactions`,
    ]);
    expect(applyRequests).toBe(6);
    expect(applied.applied).toBe(kept.length);
    expect(applied.change_id).toBeTruthy();
    // The state after, as every write gives it: each account it touched with its balance as A's raw API has it.
    expect(applied.accounts.length).toBeGreaterThan(0);
    for (const row of applied.accounts)
      expect([row.account_name, row.balance]).toEqual([row.account_name, (await raw(A, `/accounts/${row.account_id}`)).account.balance]);
    const ids: Record<string, string> = applied.ids ?? {};
    expect(ids[madeId]).toBeTruthy();
    expect(Object.keys(ids)).toHaveLength(2); // both purchases, made in one request (the one POST above)

    // The rest equals the rehearsal's end state, raw answer by raw answer.
    for (const key of touched.keys()) {
      const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      const real = `${kind}:${ids[id] ?? id}`;
      expect([key, await startOf(A, real)]).toEqual([key, await startOf(B, key)]);
    }
    expect(await startOf(A, `transaction:${splitTarget.id}`)).toEqual(splitBefore); // left out: YNAB's change stands

    // undo_change on A: every entity as it was before the apply.
    const undone = ok(await A.call('undo_change', { ...bud, change_id: applied.change_id }));
    if (undone.confirm_token) ok(await A.call('undo_change', { ...bud, change_id: applied.change_id, confirm_token: undone.confirm_token }));
    for (const [key, was] of before) {
      const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      const now = await startOf(A, `${kind}:${ids[id] ?? id}`);
      if (was === null) expect([key, now === null || (now as any).deleted]).toEqual([key, true]);
      else expect([key, now]).toEqual([key, was]);
    }
  });
});
