/**
 * Debt payoff and card coverage (issue 35): how long debt_payoff and needs_attention's card
 * coverage take through a real MCP client on a copy already synced, at 1,500 and 100,000
 * transactions, and the bytes of their answers (the text a model reads). The demo budget has a
 * mortgage, a car loan and a student loan with YNAB's loan terms, and cards, one carrying its
 * balance; with `apr`, the cards are planned too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, timed } from './stats.js';

const CALLS: [string, Record<string, unknown>][] = [
  ['debt_payoff', {}],
  ['debt_payoff', { extra_per_month: 200, apr: { 'Visa Rewards': 22.9, 'Citi Store Card': 27.5 } }],
  ['debt_payoff', { detail: 'full' }],
  ['needs_attention', { kind: 'card_payment_shortfall' }],
  ['needs_attention', { kind: 'card_payment_shortfall', detail: 'full' }],
];

async function run(report: Reporter): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-debt-'));
    const c = await countingClient(sb, dir, { maxStalenessMs: 600_000 });
    try {
      await c.client.callTool({ name: 'list_accounts', arguments: {} });
      for (const [name, args] of CALLS) {
        const times: number[] = [];
        let bytes = 0;
        for (let i = 0; i < 5; i++) {
          const [res, took] = await timed(() => c.client.callTool({ name, arguments: args }));
          const r = res as { isError?: boolean; content?: { text?: string }[] };
          if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
          bytes = Buffer.byteLength(r.content?.[0]?.text ?? '', 'utf8');
          times.push(took);
        }
        report.row({ transactions: n, tool: name, args: JSON.stringify(args), p50: ms(median(times)), 'answer bytes': bytes });
      }
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
      await sb.close();
    }
  }
  report.note(
    'p50 of 5 calls each on a copy already synced (the first call of the session, list_accounts, paid the sync); answer bytes are the text of one answer.',
  );
}

export const debtSection: BenchSection = {
  name: 'debt',
  title: 'Debt payoff and card coverage',
  about:
    'debt_payoff (minimums, avalanche and snowball; with extra and card APRs; the monthly schedule) and card coverage (needs_attention card_payment_shortfall, compact and full) at 1,500 and 100,000 transactions: milliseconds and answer bytes.',
  run,
};
