/**
 * The replica against the API: latency of assistant-style reads answered from the replica versus
 * fetched from the service each time, and how many real requests 200 such reads cost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { createStack } from '../src/stack/stack.js';
import type { OperationId } from '../src/api/operations/index.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, percentile, timed } from './stats.js';

export async function replicaBench(report: Reporter): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-'));
    let requests = 0;
    const stack = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: dir,
      persist: false,
      maxStalenessMs: 60_000,
      quotaLimit: 10_000_000,
      onRequest: () => (requests += 1),
    });
    const budget = sb.state.budgets[0]!.id;
    const reads: [OperationId, Record<string, string>, Record<string, string>][] = [
      ['getAccounts', { budget_id: budget }, {}],
      ['getTransactions', { budget_id: budget }, { type: 'unapproved' }],
      ['getCategories', { budget_id: budget }, {}],
      ['getPlanMonth', { budget_id: budget, month: 'current' }, {}],
      ['getTransactionsByMonth', { budget_id: budget, month: 'current' }, {}],
    ];
    const [, firstSync] = await timed(() => stack.service.call('getAccounts', { params: { budget_id: budget } }));
    const before = requests;
    const replicaTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const [id, params, query] = reads[i % reads.length]!;
      const [, t] = await timed(() => stack.service.call(id, { params, query }));
      replicaTimes.push(t);
    }
    const replicaRequests = requests - before;
    const apiTimes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const [id, params, query] = reads[i % reads.length]!;
      const [, t] = await timed(() => stack.client.call(id, { params, query }));
      apiTimes.push(t);
    }
    if (n === 100_000) {
      const p50 = median(replicaTimes);
      report.figure('replica read p50 at 100,000 transactions', ms(p50), { goal: '≤ 1 ms', met: p50 <= 1 });
    }
    report.row({
      transactions: n,
      'first sync (full export)': ms(firstSync),
      'replica read p50 / p99': `${ms(median(replicaTimes))} / ${ms(percentile(replicaTimes, 99))}`,
      'API read p50': ms(median(apiTimes)),
      'API/replica': (median(apiTimes) / median(replicaTimes)).toFixed(1),
      'requests for 200 reads': replicaRequests,
    });
    await stack.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const replicaSection: BenchSection = {
  name: 'replica',
  title: 'Replica against the API',
  about:
    "Assistant-style reads (accounts, unapproved transactions, categories, this month, this month's transactions) answered from the replica versus fetched from the service each time, at 1,500 and 100,000 transactions, with the sandbox in the same process; and how many real requests 200 such reads cost.",
  run: replicaBench,
};
