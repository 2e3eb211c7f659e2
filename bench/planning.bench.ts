/**
 * The planning insights (issue 35): forecast and recurring on the demo budget at 1,500 and
 * 100,000 transactions, through a real MCP client on a fresh copy (synced by a first call to
 * list_accounts, so neither pays the sync): the first call (which builds the budget's view and
 * finds the recurring items, shared by both tools) and the median of five more, and the bytes of
 * each default answer (the text a model reads).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, timed } from './stats.js';

const CALLS: [string, Record<string, unknown>][] = [
  ['recurring', {}],
  ['forecast', {}],
  ['forecast', { months: 24 }],
  ['forecast', { until_date: 'next payday' }],
  ['forecast', { include: ['scheduled', 'recurring', 'assigned'] }],
  ['recurring', { detail: 'full' }],
  ['forecast', { months: 24, detail: 'full' }],
];

export async function planningBench(report: Reporter): Promise<void> {
  let worst = 0;
  for (const n of [1_500, 100_000]) {
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-planning-'));
    const counted = await countingClient(sb, dir, { maxStalenessMs: 600_000 });
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const res: any = await counted.client.callTool({ name, arguments: args });
        if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
        return Buffer.byteLength(res.content[0].text, 'utf8');
      };
      await call('list_accounts', {});
      for (const [name, args] of CALLS) {
        const [bytes, first] = await timed(() => call(name, args));
        const times: number[] = [];
        for (let k = 0; k < 5; k++) times.push((await timed(() => call(name, args)))[1]);
        if (!args.detail) worst = Math.max(worst, bytes);
        report.row({ transactions: n, tool: name, args: JSON.stringify(args), 'first call': ms(first), p50: ms(median(times)), bytes });
      }
    } finally {
      await counted.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  report.figure('largest default answer', `${worst} bytes`, { goal: '≤ 2,048 bytes', met: worst <= 2048 });
  report.note('The first call of the first row builds the view of the budget and finds the recurring items; every later call on the same copy reuses them.');
}

export const planningSection: BenchSection = {
  name: 'planning',
  title: 'Planning insights: forecast and recurring',
  about:
    'forecast and recurring through a real MCP client on the demo budget at 1,500 and 100,000 transactions (a fresh copy): the first call, the median of five more, and the bytes of each answer.',
  run: planningBench,
};
