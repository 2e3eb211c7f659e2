/**
 * What a 500-row statement costs in requests to YNAB, counted at the transport: the preview at
 * most one (the delta bringing the budget's copy up to date), the confirm at most three (one
 * delta, one bulk create of the new rows, one bulk update clearing the matched ones). The file is
 * made from the account's data: 50 rows match hand-entered uncleared transactions, 450 are new;
 * what was done is checked from the sandbox's records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions, sandboxDirect, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;
const requests: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'statement-cost' }, stack: { onRequest: (r) => requests.push(`${r.method} ${r.path}`) } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
  // The server's copy of the budget, read once, as it is when someone imports.
  ok(await h.call('list_accounts', {}));
}, 60_000);
afterAll(() => h.close());

describe('import_statement cost', () => {
  it('a 500-row file: the preview costs at most one request, the confirm at most three', async () => {
    const txns = await rawTransactions(h, budget, account);
    const used = new Set<number>();
    // 50 hand-entered uncleared transactions, each alone at its amount within 10 days (entered fault-free).
    const typed: any[] = [];
    for (let i = 0; i < 50; i++) {
      const date = addDays(today, -2 - (i % 80));
      const body = {
        account_id: account,
        date,
        amount: freeAmount(txns, date, used, -40_010 - i * 1000),
        payee_name: `Corner Bakery ${i}`,
        cleared: 'uncleared',
      };
      typed.push(sandboxDirect(h, 'POST', `/budgets/${budget}/transactions`, { transaction: body }).transaction);
    }
    const withTyped = await rawTransactions(h, budget, account);
    const fresh: Row[] = Array.from({ length: 450 }, (_, i) => {
      const date = addDays(today, -1 - (i % 90));
      return { date, payee: `Cost Shop ${i % 60}`, amount: freeAmount(withTyped, date, used, -100_020 - i * 1000) };
    });
    const rows: Row[] = [...typed.map((t) => ({ date: t.date, payee: `${t.payee_name} #44`, amount: t.amount })), ...fresh];
    const args = { account_id: 'Everyday Checking', content: csv(rows), columns: COLUMNS };
    // A held write's preview plans from YNAB's state of the last second (src/writes/pipeline/reads.ts): past it, one delta.
    await new Promise((r) => setTimeout(r, 1_100));

    requests.length = 0;
    const preview = ok(await h.call('import_statement', args));
    expect(requests.length, requests.join('\n')).toBeLessThanOrEqual(1);
    expect(requests.every((r) => r.startsWith('GET'))).toBe(true);
    expect(preview.totals).toMatchObject({ rows: 500, matched: 50, new: 450, conflict: 0, skipped: 0, to_clear: 50 });

    requests.length = 0;
    const done = ok(await h.call('import_statement', { ...args, confirm_token: preview.confirm_token }));
    expect(requests.length, requests.join('\n')).toBeLessThanOrEqual(3);
    expect(requests.filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith('PATCH'))).toHaveLength(1);
    expect(done).toMatchObject({ created: 450, cleared: 50 });

    const after = await rawTransactions(h, budget, account);
    expect(after).toHaveLength(withTyped.length + 450);
    const byImportId = new Map(after.filter((t) => t.import_id).map((t) => [t.import_id, t]));
    for (const f of fresh) expect(byImportId.get(`YNAB:${f.amount}:${f.date}:1`)).toMatchObject({ amount: f.amount, date: f.date });
    for (const t of typed) expect(after.find((x) => x.id === t.id).cleared).toBe('cleared');
  }, 120_000);
});
