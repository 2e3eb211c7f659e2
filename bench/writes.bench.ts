/**
 * What the confirm flow, the undo journal and the task tools cost, through a real MCP client on
 * the sandbox: requests to YNAB (the scarce thing: 200 an hour) and time per call, for a direct
 * create, a held delete (its preview, then its confirm), each task tool, and an undo (preview and
 * confirm); and the undo journal's own latency (append, list of 100).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { FileStateStore } from '../src/storage/file-store.js';
import { ephemeralKey } from '../src/sync/seal.js';
import { UndoJournal } from '../src/writes/pipeline/undo-journal.js';
import { countingClient } from './counting-client.js';
import type { BenchSection } from './section.js';
import { median, ms, percentile, timed } from './stats.js';

export async function writesBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-writes-'));
  const sb = await startSandbox({ seed: 'bench-writes', rateLimit: 10_000_000, log: () => {} });
  const counted = await countingClient(sb, dir);
  const call = async (name: string, args: Record<string, unknown>) => {
    const res: any = await counted.client.callTool({ name, arguments: args });
    if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
    return res.structuredContent;
  };
  const today = new Date().toISOString().slice(0, 10);
  try {
    await call('list_accounts', {});
    const rows: Record<string, { requests: number[]; ms: number[] }> = {};
    const measure = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      const before = counted.requests();
      const [value, took] = await timed(fn);
      (rows[what] ??= { requests: [], ms: [] }).requests.push(counted.requests() - before);
      rows[what].ms.push(took);
      return value;
    };
    for (let i = 0; i < 20; i++) {
      const made = await measure('create_transactions (direct)', () =>
        call('create_transactions', {
          budget_id: sb.state.budgets[0]!.id,
          transactions: [{ account_id: 'Wallet', date: today, amount_milliunits: -(1000 + i), payee_name: `Bench ${i}` }],
        }),
      );
      const id = made.transaction_ids[0];
      const preview = await measure('delete_transaction: preview', () => call('delete_transaction', { transaction_id: id }));
      await measure('delete_transaction: confirm', () => call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token }));
      await measure('move_money', () =>
        call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Hobbies', amount_milliunits: 1000, allow_overspend: true }),
      );
      const transfer = await measure('create_transfer', () =>
        call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount_milliunits: 5000 + i }),
      );
      const undo = await measure('undo_change: preview', () => call('undo_change', { change_id: transfer.change_id }));
      await measure('undo_change: confirm', () => call('undo_change', { change_id: transfer.change_id, confirm_token: undo.confirm_token }));
    }
    for (const [what, r] of Object.entries(rows)) {
      report({
        section: 'writes',
        call: what,
        'requests p50 / max': `${median(r.requests)} / ${Math.max(...r.requests)}`,
        'time p50 / p99': `${ms(median(r.ms))} / ${ms(percentile(r.ms, 99))}`,
      });
    }
    const log = new UndoJournal(new FileStateStore(join(dir, 'log')), ephemeralKey(), async () => 'bench');
    const entities = Array.from({ length: 6 }, (_, i) => ({
      kind: 'transaction' as const,
      id: `t${i}`,
      action: 'update' as const,
      before: { memo: 'a', amount: -1000 },
      after: { memo: 'b', amount: -1000 },
    }));
    const append: number[] = [];
    for (let i = 0; i < 120; i++) append.push((await timed(() => log.append('b', { tool: 'approve_transactions', summary: `bench ${i}`, entities })))[1]);
    const list: number[] = [];
    for (let i = 0; i < 10; i++) list.push((await timed(() => log.recent('b')))[1]);
    report({
      section: 'writes',
      call: 'undo journal (file store)',
      'append p50 / p99': `${ms(median(append))} / ${ms(percentile(append, 99))}`,
      'list 100 p50': ms(median(list)),
    });
  } finally {
    await counted.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const writesSection: BenchSection = {
  name: 'writes',
  title: 'Writes: confirm, undo, task tools',
  about:
    "Through a real MCP client on the sandbox: requests to YNAB and time per call for a direct create, a held delete (preview, then confirm), move_money, create_transfer and an undo (preview and confirm); and the undo journal's append and list latency on the file store.",
  run: (r) => writesBench((row) => r.row(row)),
};
