/**
 * What the targets tools and money health cost (issue 35), through a real MCP client on the
 * sandbox at 1,500 and 100,000 transactions: targets_summary (compact and full) and cash_flow
 * with its money health over a year, each time per call on a copy already synced (p50 of 5) and
 * the answer's bytes (the text a model reads); and fund_targets' requests to YNAB: one per
 * category it changes, plus the plan's read of YNAB now, and its undo's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, timed } from './stats.js';

const INSIGHTS: [string, Record<string, unknown>][] = [
  ['targets_summary', {}],
  ['targets_summary', { detail: 'full' }],
  ['cash_flow', { months: 12 }],
];

export async function targetsBench(report: Reporter): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-targets-'));
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const counted = await countingClient(sb, dir, { maxStalenessMs: 600_000 });
    const call = async (name: string, args: Record<string, unknown>) => {
      const res: any = await counted.client.callTool({ name, arguments: args });
      if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
      return res;
    };
    try {
      await call('list_accounts', {});
      for (const [name, args] of INSIGHTS) {
        const times: number[] = [];
        let text = '';
        for (let i = 0; i < 5; i++) {
          const [res, took] = await timed(() => call(name, args));
          times.push(took);
          text = res.content?.[0]?.text ?? '';
        }
        report.row({
          transactions: n,
          call: `${name} ${JSON.stringify(args)}`,
          'time p50': ms(median(times)),
          'answer bytes': Buffer.byteLength(text),
          requests: '',
        });
      }
      // Reset the Bills first (money back to Ready to Assign), then fund what is underfunded with
      // it; both are undone, the later first.
      const made: string[] = [];
      for (const [option, group] of [
        ['reset_assigned', 'Bills'],
        ['underfunded', undefined],
      ] as const) {
        const before = counted.requests();
        const args = { option, ...(group ? { category_group_id: group } : {}) };
        // Previewed first (always), then confirmed: both counted.
        const [res, took] = await timed(async () => {
          const preview = (await call('fund_targets', args)).structuredContent;
          return preview.confirm_token ? call('fund_targets', { ...args, confirm_token: preview.confirm_token }) : { structuredContent: preview };
        });
        const done = res.structuredContent;
        report.row({
          transactions: n,
          call: `fund_targets ${option}${group ? ` (${group})` : ''} (preview, confirm): ${done.count ?? 0} categories`,
          'time p50': ms(took),
          'answer bytes': Buffer.byteLength(res.content?.[0]?.text ?? ''),
          requests: counted.requests() - before,
        });
        if (done.change_id) made.unshift(done.change_id);
      }
      for (const id of made) {
        const u = counted.requests();
        const preview = (await call('undo_change', { change_id: id })).structuredContent;
        await call('undo_change', { change_id: id, confirm_token: preview.confirm_token });
        report.row({
          transactions: n,
          call: `undo_change (preview, confirm): ${preview.count} categories`,
          'time p50': '',
          'answer bytes': '',
          requests: counted.requests() - u,
        });
      }
    } finally {
      await counted.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  report.note(
    'fund_targets costs one request per category changed (the API has no bulk month-category write) and one read of YNAB now for its plan; its undo the same.',
  );
}

export const targetsSection: BenchSection = {
  name: 'targets',
  title: 'Targets and money health',
  about:
    'Through a real MCP client on the sandbox at 1,500 and 100,000 transactions: targets_summary (compact, full) and cash_flow with money health over 12 months, time per call on a synced copy (p50 of 5) and answer bytes; fund_targets and its undo, requests to YNAB.',
  run: (r) => targetsBench(r),
};
