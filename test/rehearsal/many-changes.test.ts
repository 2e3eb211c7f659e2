/**
 * A rehearsal keeps every change of a long session (issue 60: "a cleanup of two hundred old
 * transactions"): the undo journal of a real budget keeps its last 100 changes, the rehearsal's keeps
 * up to REHEARSAL_MAX_CHANGES, so rehearsal_changes lists all of them and apply_rehearsal applies all
 * of them. Past that cap the apply is refused, saying why, rather than applying a session whose
 * earliest changes were dropped. `serve --rehearse` as a real child process, one sandbox playing
 * YNAB; what YNAB holds after is read from its raw API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { cliMcp, sandboxEnv } from '../helpers/cli-mcp.js';
import { killAllCli } from '../helpers/cli.js';
import { ok } from '../helpers/mcp.js';
import { rehearsalPair, write } from '../writes/rehearsal-pair.js';

let real: RunningSandbox;
const root = mkdtempSync(join(tmpdir(), 'rehearse-many-'));
let budgetId: string;

async function rawGet(path: string): Promise<any> {
  return ((await (await fetch(`${real.baseUrl}${path}`, { headers: { authorization: `Bearer ${real.accessToken}` } })).json()) as any).data;
}

beforeAll(async () => {
  real = await startSandbox({ seed: 'test', log: () => {} });
  budgetId = (await rawGet('/budgets')).budgets[0].id;
});

afterAll(async () => {
  killAllCli();
  await real?.close();
  rmSync(root, { recursive: true, force: true });
});

it('a session of 120 changes: rehearsal_changes lists all 120, and apply_rehearsal applies all 120', async () => {
  const dir = mkdtempSync(join(root, 'session-'));
  const env = sandboxEnv(real, dir);
  const targets = (await rawGet(`/budgets/${budgetId}/transactions`)).transactions
    .filter((t: any) => !t.deleted && !t.transfer_account_id && !t.subtransactions.length)
    .slice(0, 120);
  expect(targets).toHaveLength(120);
  const { client, transport } = await cliMcp(['serve', '--rehearse', '--budget', budgetId], env);
  try {
    for (const [i, t] of targets.entries()) {
      const res: any = await client.callTool({ name: 'update_transaction', arguments: { budget_id: budgetId, transaction_id: t.id, memo: `cleanup ${i}` } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    }
    const listed: any = await client.callTool({ name: 'rehearsal_changes', arguments: {} });
    expect(listed.structuredContent.changes).toHaveLength(120);
    expect(listed.structuredContent.notices).toBeUndefined();
    expect(listed.structuredContent.totals.transactions_changed).toBe(120);

    const preview: any = await client.callTool({ name: 'apply_rehearsal', arguments: { budget_id: budgetId } });
    expect(preview.isError, preview.content?.[0]?.text).toBeFalsy();
    expect(preview.structuredContent.applies).toHaveLength(120);
    const applied: any = await client.callTool({
      name: 'apply_rehearsal',
      arguments: { budget_id: budgetId, confirm_token: preview.structuredContent.confirm_token },
    });
    expect(applied.isError, applied.content?.[0]?.text).toBeFalsy();
    const after = new Map((await rawGet(`/budgets/${budgetId}/transactions`)).transactions.map((t: any) => [t.id, t.memo]));
    expect(targets.map((t: any, i: number) => [t.id, after.get(t.id)])).toEqual(targets.map((t: any, i: number) => [t.id, `cleanup ${i}`]));
  } finally {
    await client.close();
    await transport.close();
  }
}, 240_000);

it('at the journal cap the apply is refused, naming the cap, and nothing is written', async () => {
  const pair = await rehearsalPair();
  try {
    const { A, B, budgetId: id, requests } = pair;
    pair.source.limit = 3; // a cap reached: the journal may have dropped the session's earliest changes
    const { transactions } = (await A.sb.get(`/budgets/${id}/transactions`)).body.data;
    for (const t of transactions.filter((x: any) => !x.deleted && !x.transfer_account_id).slice(0, 3))
      await write(B, 'update_transaction', { budget_id: id, transaction_id: t.id, memo: 'rehearsed' });
    requests.length = 0;
    const res = await A.call('apply_rehearsal', { budget_id: id });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toContain('keeps at most 3 changes');
    expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]); // the budget read, no write
    ok(await A.call('list_accounts', { budget_id: id }));
  } finally {
    await pair.close();
  }
}, 120_000);
