/**
 * `rehearsal_changes` (issue 60 item 3) through a real `serve --rehearse` child and the real MCP
 * client: a session of changes (a purchase, money assigned, a recategorization, a delete, and a
 * purchase undone), then one answer listing them in order with their entities before and after,
 * and the totals. Every expected figure is taken from "YNAB"'s raw API: the start from the sandbox
 * playing YNAB, and the end by making the same changes there through the raw API afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { cliMcp, sandboxEnv } from '../helpers/cli-mcp.js';
import { killAllCli } from '../helpers/cli.js';
import { savedToolsnap } from '../helpers/toolsnaps.js';

let real: RunningSandbox;
let budgetId: string;
const root = mkdtempSync(join(tmpdir(), 'rehearsal-changes-'));

async function raw(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${real.baseUrl}/budgets/${budgetId}${path}`, {
    method,
    headers: { authorization: `Bearer ${real.accessToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return ((await res.json()) as any).data;
}

/** Ready to Assign as the raw API gives it: the latest month's to_be_budgeted. */
async function readyToAssign(): Promise<{ month: string; amount: number }> {
  const months = (await raw('GET', '/months')).months.filter((m: any) => !m.deleted);
  const latest = months.reduce((a: any, m: any) => (m.month > a.month ? m : a));
  return { month: latest.month.slice(0, 7), amount: latest.to_be_budgeted };
}

beforeAll(async () => {
  real = await startSandbox({});
  const list: any = await (await fetch(`${real.baseUrl}/budgets`, { headers: { authorization: `Bearer ${real.accessToken}` } })).json();
  budgetId = list.data.budgets[0].id;
});

afterAll(async () => {
  killAllCli();
  await real.close();
  rmSync(root, { recursive: true, force: true });
});

/** A write, confirmed with its confirm_token when it answers with a preview first. */
async function write(client: any, name: string, args: Record<string, unknown>): Promise<any> {
  let res: any = await client.callTool({ name, arguments: args });
  if (res.structuredContent?.confirm_token) res = await client.callTool({ name, arguments: { ...args, confirm_token: res.structuredContent.confirm_token } });
  expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
  return res.structuredContent;
}

describe('rehearsal_changes', () => {
  it('lists the changes in effect in order, before and after, with totals recomputed from the raw API', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const today = new Date().toISOString().slice(0, 10);
    const accounts = (await raw('GET', '/accounts')).accounts;
    const checking = accounts.find((a: any) => a.type === 'checking' && !a.closed && !a.deleted);
    // The user's own categories: money can be assigned to them and transactions put in them. Not the
    // internal ones (Ready to Assign holds a balance on some days), nor a card's payment category
    // (YNAB leaves a transaction put there uncategorized).
    const categories = (await raw('GET', `/months/${month}-01`)).month.categories.filter(
      (c: any) =>
        !c.hidden &&
        !c.deleted &&
        c.balance > 100_000 &&
        c.category_group_name !== 'Internal Master Category' &&
        c.category_group_name !== 'Credit Card Payments',
    );
    const [cat, other] = categories as any[];
    // Purchases in neither: the recategorization to `other` is a change whatever the day.
    const txs = (await raw('GET', `/accounts/${checking.id}/transactions`)).transactions.filter(
      (t: any) =>
        !t.deleted &&
        !t.transfer_account_id &&
        !t.subtransactions.length &&
        t.category_id &&
        t.category_id !== cat.id &&
        t.category_id !== other.id &&
        t.amount < 0,
    );
    const [moved, gone] = txs as any[];
    const rtaBefore = await readyToAssign();

    const env = sandboxEnv(real, root);
    const { client, transport } = await cliMcp(['serve', '--rehearse', '--budget', budgetId], env);
    let answer: any;
    let listedTool: any;
    const ids: string[] = [];
    try {
      const purchase = { account_id: checking.id, date: today, amount: -12.34, category_id: cat.id, memo: 'rehearsed' };
      ids.push((await write(client, 'create_transactions', { transactions: [purchase] })).change_id);
      ids.push(
        (await write(client, 'update_month_category', { month: `${month}-01`, category_id: cat.id, budgeted_milliunits: cat.budgeted + 50_000 })).change_id,
      );
      ids.push((await write(client, 'update_transaction', { transaction_id: moved.id, category_id: other.id })).change_id);
      const undone = (await write(client, 'create_transactions', { transactions: [{ ...purchase, amount: -99, memo: 'undone' }] })).change_id;
      await write(client, 'undo_change', { change_id: undone });
      ids.push((await write(client, 'delete_transaction', { transaction_id: gone.id })).change_id);
      const res: any = await client.callTool({ name: 'rehearsal_changes', arguments: {} });
      expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
      answer = res.structuredContent;
      listedTool = (await client.listTools()).tools.find((t) => t.name === 'rehearsal_changes');
    } finally {
      await client.close();
      await transport.close();
    }

    // The same changes made on "YNAB" through the raw API: its figures are the expected end.
    await raw('POST', '/transactions', { transaction: { account_id: checking.id, date: today, amount: -12_340, category_id: cat.id, memo: 'rehearsed' } });
    await raw('PATCH', `/months/${month}-01/categories/${cat.id}`, { category: { budgeted: cat.budgeted + 50_000 } });
    await raw('PUT', `/transactions/${moved.id}`, { transaction: { category_id: other.id } });
    await raw('DELETE', `/transactions/${gone.id}`);
    const rtaAfter = await readyToAssign();

    expect(answer.rehearsal).toMatch(/^rehearsal copy of ".+" taken .+ UTC; nothing changes in YNAB$/);
    expect(answer.changes.map((c: any) => [c.change_id, c.tool])).toEqual([
      [ids[0], 'create_transactions'],
      [ids[1], 'update_month_category'],
      [ids[2], 'update_transaction'],
      [ids[3], 'delete_transaction'],
    ]);
    for (const c of answer.changes) expect(c.did).toMatch(/\w/);
    const assigned = answer.changes[1].entities.find((e: any) => e.kind === 'month_category');
    expect([assigned.before.budgeted, assigned.after.budgeted]).toEqual([cat.budgeted, cat.budgeted + 50_000]);
    const recategorized = answer.changes[2].entities.find((e: any) => e.id === moved.id);
    expect([recategorized.before.category_id, recategorized.after.category_id]).toEqual([moved.category_id, other.id]);
    const names = new Map(((await raw('GET', '/categories')).category_groups as any[]).flatMap((g) => g.categories.map((c: any) => [c.id, c.name])));
    expect(recategorized.change).toBe(`category is now ${JSON.stringify(names.get(other.id))} (it was ${JSON.stringify(names.get(moved.category_id))})`);
    const deleted = answer.changes[3].entities.find((e: any) => e.id === gone.id);
    expect([deleted.action, deleted.before.amount, deleted.after]).toEqual(['delete', gone.amount, null]);
    expect(answer.totals).toMatchObject({
      transactions_created: 1,
      transactions_changed: 1,
      transactions_deleted: 1,
      assigned_by_month: [{ month, amount: 50_000 }],
      ready_to_assign_before: rtaBefore,
      ready_to_assign_after: rtaAfter,
    });
    expect(rtaAfter.amount).not.toBe(rtaBefore.amount);

    // Listed while rehearsing, with a schema snapshot like every other tool's (test/mcp/__toolsnaps__).
    const t = listedTool;
    const current = `${JSON.stringify({ name: t.name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: t.inputSchema, outputSchema: t.outputSchema }, null, 2)}\n`;
    expect(current, 'rehearsal_changes changed; rerun with UPDATE_TOOLSNAPS=1 if intended').toBe(
      savedToolsnap(join(import.meta.dirname, '..', 'mcp', '__toolsnaps__', 'rehearsal_changes.json'), current),
    );
  }, 120_000);
});
