/**
 * Issue 60 item 6, end to end: one sandbox plays YNAB over HTTP; `ynab-mcp serve --rehearse` runs as
 * a real child process (its copy in its own in-process sandbox), and the real MCP client drives the
 * whole path as a model would, every write previewed and then confirmed (--writes confirm):
 *  1. the rehearsal starts with exactly one request to "YNAB";
 *  2. six kinds of change: a logged purchase (at a payee new to the budget), a recategorization by
 *     filter, a split, move_money, fund_targets for next month, apply_rules to the past;
 *  3. one is undone in the rehearsal;
 *  4. rehearsal_changes lists the rest, and its totals equal what the test recomputes from the copy's
 *     raw API against YNAB's (the copy's data file served by a sandbox of the test's own);
 *  5. one transaction the rehearsal touched is changed directly in YNAB (a raw PUT);
 *  6. apply_rehearsal (preview, then confirm, in a reopened rehearsal) names that conflict with both
 *     values and leaves it out; the rest equals the rehearsal's end state, entity by entity, in
 *     YNAB's raw API: the transactions touched, next month's assigned figures, Ready to Assign
 *     (the new payee made once, by name); the apply costs 2 requests to preview and 6 to confirm;
 *  7. undo_change of the apply, asked in the same rehearsal session, runs on the real budget and
 *     puts back the start (all but the direct edit of step 5, which is not ours).
 * Nothing reaches YNAB between the start and the apply: the test counts the requests. The server
 * speaks the `/plans` era; the test reads YNAB through `/budgets`, so its own reads are told apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { giveReadyToAssign } from '../helpers/sandbox.js';
import { cliMcp, sandboxEnv } from '../helpers/cli-mcp.js';
import { killAllCli } from '../helpers/cli.js';

let real: RunningSandbox;
/** The server's requests to "YNAB" (it speaks /plans; the test's own reads go to /budgets). */
const requests: string[] = [];
const root = mkdtempSync(join(tmpdir(), 'rehearse-e2e-'));
let budgetId: string;
const NEW_PAYEE = 'Rehearsal Corner Shop';

beforeAll(async () => {
  // The seed the other write tests use (a budget with money to assign); strict: the server sends only fields the API defines.
  real = await startSandbox({
    seed: 'test',
    strict: true,
    verbose: true,
    log: (l) => void (/^sandbox: [A-Z]+ \/v1\//.test(l) && !/ \/v1\/budgets/.test(l) && requests.push(l.split(' ').slice(1, 3).join(' '))),
  });
  budgetId = (await rawGet(real, '/budgets')).budgets[0].id;
  // Money to assign whatever the day: the rehearsal funds next month's targets.
  await giveReadyToAssign(real, budgetId, 1_000_000);
});

afterAll(async () => {
  killAllCli();
  await real?.close();
  rmSync(root, { recursive: true, force: true });
});

async function rawGet(sb: RunningSandbox, path: string): Promise<any> {
  const res = await fetch(`${sb.baseUrl}${path}`, { headers: { authorization: `Bearer ${sb.accessToken}` } });
  return res.status === 404 ? undefined : ((await res.json()) as any).data;
}

/** A tool's answer; fails on an error. */
async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res: any = await c.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
  return res.structuredContent;
}

/** A write as a model makes it: the preview, then the confirm with its token. */
async function write(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const preview = await call(c, name, args);
  expect(preview.confirm_token, `${name} previews first: ${JSON.stringify(preview).slice(0, 3000)}`).toBeTruthy();
  const done = await call(c, name, { ...args, confirm_token: preview.confirm_token });
  expect(done.change_id, `${name} applied: ${JSON.stringify(done).slice(0, 300)}`).toBeTruthy();
  return done;
}

/** A transaction's fields a person sees (lines in a stable order), or null when it is not there. */
function shape(t: any): Record<string, unknown> | null {
  if (!t || t.deleted) return null;
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
  };
}

/** What the test compares of a budget, from a sandbox's raw API: its transactions, and two months' assigned figures and Ready to Assign. */
async function snapshot(sb: RunningSandbox, months: string[]) {
  const transactions = new Map<string, Record<string, unknown>>();
  for (const t of (await rawGet(sb, `/budgets/${budgetId}/transactions`)).transactions) {
    const s = shape(t);
    if (s) transactions.set(t.id, s);
  }
  const assigned = new Map<string, number>(); // month/category → budgeted
  const rta = new Map<string, number>();
  for (const m of months) {
    const month = (await rawGet(sb, `/budgets/${budgetId}/months/${m}`))?.month;
    rta.set(m, month?.to_be_budgeted ?? NaN);
    for (const c of month?.categories ?? []) if (!c.deleted) assigned.set(`${m}/${c.id}`, c.budgeted);
  }
  return { transactions, assigned, rta };
}
type Snapshot = Awaited<ReturnType<typeof snapshot>>;

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The entities the six changes use, chosen from YNAB's raw API. */
async function chooseEntities() {
  const { transactions } = await rawGet(real, `/budgets/${budgetId}/transactions`);
  const { category_groups: groups } = await rawGet(real, `/budgets/${budgetId}/categories`);
  const { accounts } = await rawGet(real, `/budgets/${budgetId}/accounts`);
  const onBudget = new Set(accounts.filter((a: any) => a.on_budget && !a.closed).map((a: any) => a.id));
  const cats = groups
    .filter((g: any) => !g.hidden && g.name !== 'Internal Master Category' && g.name !== 'Credit Card Payments')
    .flatMap((g: any) => g.categories.filter((c: any) => !c.hidden && !c.deleted && c.name !== 'Inflow: Ready to Assign'));
  const plain = transactions.filter(
    (t: any) =>
      !t.deleted &&
      onBudget.has(t.account_id) &&
      !t.transfer_account_id &&
      !t.subtransactions.length &&
      t.amount < 0 &&
      t.category_id &&
      t.payee_id &&
      !/starting balance/i.test(t.payee_name ?? '') &&
      cats.some((c: any) => c.id === t.category_id),
  );
  const byPayee = new Map<string, any[]>();
  for (const t of plain) byPayee.set(t.payee_id, [...(byPayee.get(t.payee_id) ?? []), t]);
  const [p1, p2, p3] = [...byPayee.entries()].filter(([, ts]) => ts.length >= 2).map(([id]) => id) as [string, string, string];
  expect(p3).toBeDefined();
  const [c1, c2] = cats.filter((c: any) => !byPayee.get(p1)!.some((t) => t.category_id === c.id));
  // The split keeps most of the purchase in its category and moves $1 to one with money this month,
  // so that leaving it out (the conflict) moves no month's Ready to Assign.
  const split = byPayee.get(p2)![0];
  const available = new Map((await rawGet(real, `/budgets/${budgetId}/months/current`)).month.categories.map((c: any) => [c.id, c.balance]));
  const c4 = cats.find((c: any) => c !== c1 && c !== c2 && c.id !== split.category_id && (available.get(c.id) as number) >= 2000);
  return { plain, byPayee, p1, p2, p3, c1, c2, c3: { id: split.category_id }, c4, split };
}

/** The tools of one `serve --rehearse` session over stdio. */
async function session<T>(dir: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const env = sandboxEnv(real, dir);
  const { client, transport } = await cliMcp(['serve', '--rehearse', '--budget', budgetId, '--writes', 'confirm'], env);
  try {
    return await fn(client);
  } finally {
    await client.close();
    await transport.close();
  }
}

/** The copy as its data file holds it, served by a sandbox of the test's own while no rehearsal runs. */
async function copySnapshot(dir: string, months: string[]): Promise<Snapshot> {
  const copy = await startSandbox({ dataFile: join(dir, 'state', 'rehearsal', 'sandbox.json'), log: () => {} });
  try {
    return await snapshot(copy, months);
  } finally {
    await copy.close();
  }
}

it('a rehearsal of six kinds of change, one undone, listed, applied around a conflict, and the apply undone on the real side', async () => {
  const dir = mkdtempSync(join(root, 'session-'));
  const today = new Date().toISOString().slice(0, 10);
  const thisMonth = `${today.slice(0, 7)}-01`;
  const nextMonth = `${addDays(`${today.slice(0, 7)}-28`, 7).slice(0, 7)}-01`;
  const months = [thisMonth, nextMonth];
  const { byPayee, p1, p3, c1, c2, c3, c4, plain, split: splitTarget } = await chooseEntities();
  const start = await snapshot(real, months);
  const bud = { budget_id: budgetId };
  requests.length = 0;

  // 1-4: the rehearsal.
  const listed = await session(dir, async (c) => {
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['rehearsal_changes', 'apply_rehearsal']));
    await call(c, 'list_accounts');
    expect(requests).toEqual([`GET /v1/plans/${budgetId}`]); // 1: one request to start

    // Next month funded first: recategorizing two years of a payee's spending overspends its new
    // category in past months, which (as in YNAB) leaves nothing to assign after.
    const funded = await write(c, 'fund_targets', { ...bud, option: 'underfunded', month: nextMonth });
    const made = await write(c, 'create_transactions', {
      ...bud,
      // At a shop new to the budget: the payee is made in the copy, and by the apply in YNAB.
      transactions: [{ account_id: plain[0].account_id, date: today, amount: -12.34, payee_name: NEW_PAYEE, category_id: c1.id, memo: 'rehearsed purchase' }],
    });
    const recat = await write(c, 'recategorize_transactions', {
      ...bud,
      payee_id: p1,
      account_id: byPayee.get(p1)![0].account_id,
      direction: 'outflow',
      new_category_id: c2.id,
    });
    const split = await write(c, 'split_transaction', {
      ...bud,
      transaction_id: splitTarget.id,
      subtransactions: [
        { amount_milliunits: splitTarget.amount + 1000, category_id: c3.id },
        { amount_milliunits: -1000, category_id: c4.id },
      ],
    });
    const moved = await write(c, 'move_money', { ...bud, from_category_id: c3.id, to_category_id: c4.id, amount: 1, allow_overspend: true });
    await call(c, 'set_rule', { ...bud, match: { payee_id: p3 }, set: { flag_color: 'purple' } });
    const ruled = await write(c, 'apply_rules', { ...bud, since_date: addDays(today, -400) });
    // 3: one undone.
    await write(c, 'undo_change', { ...bud, change_id: moved.change_id });

    // 4: the list.
    const answer = await call(c, 'rehearsal_changes');
    expect(answer.changes.map((r: any) => [r.change_id, r.tool])).toEqual([
      [funded.change_id, 'fund_targets'],
      [made.change_id, 'create_transactions'],
      [recat.change_id, 'recategorize_transactions'],
      [split.change_id, 'split_transaction'],
      [ruled.change_id, 'apply_rules'],
    ]);
    expect(requests).toEqual([`GET /v1/plans/${budgetId}`]);
    return { answer, madeId: JSON.stringify(made).match(/"id":"([0-9a-f-]{36})"/)![1]!, split };
  });

  // 4: the totals, recomputed from the copy's raw API against YNAB's (still the start).
  const copy = await copySnapshot(dir, months);
  const ids = new Set([...start.transactions.keys(), ...copy.transactions.keys()]);
  const count = (f: (a: unknown, b: unknown) => boolean) => [...ids].filter((id) => f(start.transactions.get(id), copy.transactions.get(id))).length;
  const assignedIn = (s: Snapshot, m: string) => [...s.assigned].filter(([k]) => k.startsWith(m)).reduce((n, [, v]) => n + v, 0);
  const { totals } = listed.answer;
  expect({
    created: totals.transactions_created,
    changed: totals.transactions_changed,
    deleted: totals.transactions_deleted,
    assigned: totals.assigned_by_month.map((m: any) => [m.month, m.amount]),
  }).toEqual({
    created: count((a, b) => !a && !!b),
    changed: count((a, b) => !!a && !!b && JSON.stringify(a) !== JSON.stringify(b)),
    deleted: count((a, b) => !!a && !b),
    assigned: months.map((m) => [m.slice(0, 7), assignedIn(copy, m) - assignedIn(start, m)]).filter(([, v]) => v !== 0),
  });
  expect(totals.transactions_created).toBe(1);
  expect(totals.transactions_changed).toBeGreaterThanOrEqual(3);
  expect(totals.ready_to_assign_before.amount).toBe(start.rta.get(`${totals.ready_to_assign_before.month}-01`));
  const latest = totals.ready_to_assign_after.month;
  expect(totals.ready_to_assign_after.amount).toBe(copy.rta.get(`${latest}-01`));

  // 5: meanwhile, in YNAB: the transaction the rehearsal split gets a memo.
  const put = await fetch(`${real.baseUrl}/budgets/${budgetId}/transactions/${splitTarget.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${real.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ transaction: { memo: 'changed in YNAB' } }),
  });
  expect(put.status).toBe(200);
  const edited = { ...start.transactions.get(splitTarget.id), memo: 'changed in YNAB' };

  // 6 and 7: the kept rehearsal reopened (no request), applied, and the apply undone from it.
  await session(dir, async (c) => {
    await call(c, 'rehearsal_changes');
    expect(requests).toEqual([`GET /v1/plans/${budgetId}`]); // nothing reached YNAB between the start and the apply

    const preview = await call(c, 'apply_rehearsal', bud);
    expect(preview.left_out.map((l: any) => [l.change_id, l.tool])).toEqual([[listed.split.change_id, 'split_transaction']]);
    expect(preview.left_out[0].why).toContain('"changed in YNAB"');
    expect(preview.left_out[0].why).toMatch(/the copy had/);
    const afterPreview = requests.length;
    const applied = await call(c, 'apply_rehearsal', { ...bud, confirm_token: preview.confirm_token });
    // What the apply cost: the preview 2 reads (the budget, the delta since the copy); the confirm
    // those 2 again, 3 writes (the purchase, every transaction update in one, next month's category)
    // and 1 read back.
    const writes = requests.slice(afterPreview).filter((r) => !r.startsWith('GET '));
    expect([afterPreview - 1, requests.length - afterPreview]).toEqual([2, 6]);
    expect(writes.map((r) => r.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')).sort()).toEqual([
      `PATCH /v1/plans/:id/months/${nextMonth}/categories/:id`,
      'PATCH /v1/plans/:id/transactions',
      'POST /v1/plans/:id/transactions',
    ]);
    expect(applied.applied).toBe(4);
    expect(applied.rehearsal).toBeUndefined(); // about the real budget

    // The rest equals the rehearsal's end state, entity by entity (YNAB's ids for what was made).
    const after = await snapshot(real, months);
    const realId = (id: string) => applied.ids?.[id] ?? id;
    expect(applied.ids?.[listed.madeId]).toBeTruthy();
    const payees = (await rawGet(real, `/budgets/${budgetId}/payees`)).payees.filter((p: any) => p.name === NEW_PAYEE);
    expect(payees).toHaveLength(1);
    expect(after.transactions.get(applied.ids[listed.madeId])!.payee_id).toBe(payees[0].id);
    for (const id of ids) {
      if (id === splitTarget.id) continue;
      if (JSON.stringify(start.transactions.get(id)) === JSON.stringify(copy.transactions.get(id))) continue;
      const rehearsed = copy.transactions.get(id);
      expect([id, after.transactions.get(realId(id)) ?? null]).toEqual([
        id,
        rehearsed ? { ...rehearsed, payee_id: realId(rehearsed.payee_id as string) } : null,
      ]);
    }
    expect(after.transactions.get(splitTarget.id)).toEqual(edited); // left out: YNAB's change stands
    expect([...after.transactions.keys()].sort()).toEqual([...start.transactions.keys(), applied.ids[listed.madeId]].sort());
    expect([...after.assigned].filter(([k]) => k.startsWith(nextMonth))).toEqual([...copy.assigned].filter(([k]) => k.startsWith(nextMonth)));
    expect(after.rta).toEqual(copy.rta);

    // 7: undo_change of the apply, in this rehearsal session, on the real budget.
    expect(applied.notices.join(' ')).toContain('undo_change with it puts everything back in YNAB');
    const undone = await write(c, 'undo_change', { ...bud, change_id: applied.change_id });
    expect(undone.rehearsal).toBeUndefined(); // run on the real budget, not the copy
    expect(JSON.stringify(undone.notices)).toContain('1 payee the change made stays'); // YNAB's API cannot delete a payee
    const back = await snapshot(real, months);
    expect(back.transactions).toEqual(new Map([...start.transactions].map(([id, s]) => [id, id === splitTarget.id ? edited : s])));
    expect(back.rta).toEqual(start.rta);
    expect([...back.assigned].filter(([k]) => k.startsWith(nextMonth) && back.assigned.get(k) !== 0)).toEqual(
      [...start.assigned].filter(([k]) => k.startsWith(nextMonth) && start.assigned.get(k) !== 0),
    );
  });
}, 180_000);
