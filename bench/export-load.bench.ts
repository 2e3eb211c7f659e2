/**
 * `--from FILE`: loading a budget export into the sandbox (src/sandbox/export/): read, check,
 * records, the sandbox's own arithmetic and its comparison with YNAB's figures. For actual's public
 * export, the demo budget (1,500 transactions) and a 100,000-transaction export, each made by
 * GET /budgets/{id} of a sandbox: the file's size, the median load time of three, and the heap the
 * loaded budget holds (heap used after loading less before, with a garbage collection before each
 * reading when node runs with --expose-gc; without it the figure is an upper bound).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { loadExport, type LoadedExport } from '../src/sandbox/export/load-export.js';
import type { BenchSection, Reporter } from './section.js';
import { kb, median, ms } from './stats.js';

const ACTUAL = join(import.meta.dirname, '..', 'test', 'fixtures', 'actual-ynab5', 'ynab5-demo-budget.json');
const gc = (globalThis as { gc?: () => void }).gc;

/** The full export of the sandbox's first budget at `transactions`, written to `file`. */
async function exportOf(transactions: number, file: string): Promise<void> {
  const sb = await startSandbox({ seed: 'bench', transactions, log: () => {}, rateLimit: 1_000_000 });
  try {
    const id = sb.state.budgets[0]!.id;
    const res = await fetch(`${sb.baseUrl}/budgets/${id}`, { headers: { authorization: `Bearer ${sb.accessToken}` } });
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  } finally {
    await sb.close();
  }
}

function measure(name: string, file: string, report: Reporter): void {
  const now = new Date();
  const times: number[] = [];
  let kept: LoadedExport | undefined;
  let heap = 0;
  for (let i = 0; i < 3; i++) {
    kept = undefined;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    kept = loadExport(file, { now });
    times.push(performance.now() - started);
    gc?.();
    heap = process.memoryUsage().heapUsed - before;
  }
  const r = kept!.report;
  report.row({
    export: name,
    file: kb(statSync(file).size),
    transactions: kept!.budget.transactions.size,
    'load (median of 3)': ms(median(times)),
    'heap held': kb(heap),
    'category-month figures reproduced': `${r.categoryMonths.agreed} of ${r.categoryMonths.compared}`,
  });
}

export const exportLoadSection: BenchSection = {
  name: 'export-load',
  title: 'Sandbox: loading a budget export',
  about:
    "ynab-mcp sandbox --from FILE: read, checked, turned into the sandbox's records and its own arithmetic compared with YNAB's figures, for actual's public export, the demo budget and a 100,000-transaction export, each file made by GET /budgets/{id}. Load time is the median of three in this process; heap held is heap used after the load less before (after a collection when node runs with --expose-gc).",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-export-'));
    try {
      measure("actual's public export", ACTUAL, report);
      for (const n of [1_500, 100_000]) {
        const file = join(dir, `export-${n}.json`);
        await exportOf(n, file);
        measure(`demo budget, ${n.toLocaleString('en-US')} transactions`, file, report);
      }
      if (!gc) report.note('node ran without --expose-gc: heap held is an upper bound (garbage not yet collected counts).');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
