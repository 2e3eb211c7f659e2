/**
 * `ynab-mcp serve --rehearse` offers apply_rehearsal beside the copy's tools (issue 60 item 4): a
 * real child process, one sandbox playing YNAB and counting every request. The rehearsal's write
 * reaches nothing until apply_rehearsal is asked; its preview and its confirm then run on the real
 * budget, and the purchase made in the rehearsal is in YNAB once, with the id YNAB gave it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { cliMcp, sandboxEnv } from '../helpers/cli-mcp.js';
import { killAllCli } from '../helpers/cli.js';

let real: RunningSandbox;
const requests: string[] = [];
const root = mkdtempSync(join(tmpdir(), 'rehearse-apply-'));
let budgetId: string;

beforeAll(async () => {
  real = await startSandbox({
    verbose: true,
    log: (l) => void (/^sandbox: [A-Z]+ \/v1\//.test(l) && requests.push(l.split(' ').slice(1, 3).join(' '))),
  });
  const raw: any = await (await fetch(`${real.baseUrl}/budgets`, { headers: { authorization: `Bearer ${real.accessToken}` } })).json();
  budgetId = raw.data.budgets[0].id;
  requests.length = 0;
});

afterAll(async () => {
  killAllCli();
  await real.close();
  rmSync(root, { recursive: true, force: true });
});

/** "YNAB"'s transactions with this memo, read from its raw API (the test's own reads, not counted). */
async function realWithMemo(memo: string): Promise<any[]> {
  const before = requests.length;
  const raw: any = await (await fetch(`${real.baseUrl}/budgets/${budgetId}/transactions`, { headers: { authorization: `Bearer ${real.accessToken}` } })).json();
  requests.length = before;
  return raw.data.transactions.filter((t: any) => !t.deleted && t.memo === memo);
}

it('serve --rehearse offers apply_rehearsal: nothing reaches YNAB until it is asked, then the kept purchase is applied once', async () => {
  const dir = mkdtempSync(join(root, 'apply-'));
  const env = sandboxEnv(real, dir);
  const { client, transport } = await cliMcp(['serve', '--rehearse', '--budget', budgetId], env);
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('apply_rehearsal');
    const accounts: any = await client.callTool({ name: 'list_accounts', arguments: {} });
    const account = accounts.structuredContent.accounts.find((a: any) => a.type === 'checking');
    const memo = 'kept from the rehearsal';
    const created: any = await client.callTool({
      name: 'create_transactions',
      arguments: { transactions: [{ account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -12.34, memo }] },
    });
    expect(created.isError, created.content?.[0]?.text).toBeFalsy();
    const rehearsalId = JSON.stringify(created.structuredContent).match(/"id":"([0-9a-f-]{36})"/)?.[1];
    expect(requests).toEqual([`GET /v1/plans/${budgetId}`]);
    expect(await realWithMemo(memo)).toEqual([]);

    const preview: any = await client.callTool({ name: 'apply_rehearsal', arguments: {} });
    expect(preview.isError, preview.content?.[0]?.text).toBeFalsy();
    expect(preview.structuredContent.confirm_token).toBeTruthy();
    expect(preview.structuredContent.rehearsal).toBeUndefined();
    expect(await realWithMemo(memo)).toEqual([]);

    const applied: any = await client.callTool({ name: 'apply_rehearsal', arguments: { confirm_token: preview.structuredContent.confirm_token } });
    expect(applied.isError, applied.content?.[0]?.text).toBeFalsy();
    const inYnab = await realWithMemo(memo);
    expect(inYnab).toHaveLength(1);
    expect(inYnab[0]).toMatchObject({ account_id: account.id, amount: -12_340 });
    if (rehearsalId) expect(applied.structuredContent.ids?.[rehearsalId] ?? inYnab[0].id).toBe(inYnab[0].id);
    expect(transport.stderr).not.toMatch(/error/i);
  } finally {
    await client.close();
    await transport.close();
  }
}, 120_000);
