/**
 * The price-rise check (issue 45 item 4), which the events watcher runs every cycle: needs_attention
 * kind price_increase through a real MCP client on the demo budget at 1,500 and 100,000
 * transactions (a fresh copy, synced first by list_accounts), the first call and the median of five
 * more; and the rule alone on one payee's charges at irregular dates (the worst case of a steady
 * run's search: no run is steady), at 1,000, 10,000 and 100,000 charges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { priceIncreaseOf } from '../src/insights/recurring/price-increase.js';
import { priceIncreaseOf as ruleBefore } from './fixtures/price-increase-before.js';
import { startSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, timed } from './stats.js';

/** Charges every 1 to 20 days (a fixed pseudo-random sequence), oldest first, ending today. */
function irregular(n: number, today: string): { date: string; amount: number }[] {
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  const out: { date: string; amount: number }[] = [];
  let t = Date.parse(today);
  for (let i = 0; i < n; i++) {
    out.push({ date: new Date(t).toISOString().slice(0, 10), amount: 10_000 + (next() % 50_000) });
    t -= (1 + (next() % 20)) * 86_400_000;
  }
  return out.reverse();
}

export async function priceRiseBench(report: Reporter): Promise<void> {
  const today = new Date().toISOString().slice(0, 10);
  let after100k = 0;
  for (const n of [1_000, 10_000, 100_000]) {
    const charges = irregular(n, today);
    const [, took] = await timed(async () => priceIncreaseOf(charges, today));
    if (n === 100_000) after100k = took;
    report.row({ what: 'the rule on one payee', transactions: n, 'first call': ms(took), p50: '' });
  }
  // The rule before 5e9d64d grows as n² log n: measured up to 10,000 charges (18 s of CPU there),
  // and carried to 100,000 by that growth, since a run at 100,000 takes about half an hour.
  let before10k = 0;
  for (const n of [1_000, 3_000, 10_000]) {
    const charges = irregular(n, today);
    const [, took] = await timed(async () => ruleBefore(charges, today));
    if (n === 10_000) before10k = took;
    report.row({ what: 'the rule on one payee, before 5e9d64d', transactions: n, 'first call': ms(took), p50: '' });
  }
  const before100k = before10k * 100 * (Math.log(100_000) / Math.log(10_000));
  report.figure('the rule on one payee at 100,000 irregular charges, before (carried from 10,000 as n² log n)', ms(before100k));
  report.figure('the rule on one payee at 100,000 irregular charges, after', ms(after100k));
  let at100k = 0;
  for (const n of [1_500, 100_000]) {
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-price-rise-'));
    const counted = await countingClient(sb, dir, { maxStalenessMs: 600_000 });
    try {
      const call = async () => {
        const res: any = await counted.client.callTool({ name: 'needs_attention', arguments: { kind: 'price_increase' } });
        if (res.isError) throw new Error(`needs_attention: ${res.content?.[0]?.text}`);
      };
      await counted.client.callTool({ name: 'list_accounts', arguments: {} });
      const [, first] = await timed(call);
      const times: number[] = [];
      for (let k = 0; k < 5; k++) times.push((await timed(call))[1]);
      if (n === 100_000) at100k = median(times);
      report.row({ what: 'needs_attention price_increase', transactions: n, 'first call': ms(first), p50: ms(median(times)) });
    } finally {
      await counted.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  report.figure('needs_attention price_increase at 100,000 transactions (p50)', ms(at100k));
  report.note('The first call builds the budget view; the rule alone runs on irregular charges, where no run is steady (its worst case).');
}

export const priceRiseSection: BenchSection = {
  name: 'price-rise',
  title: 'The price-rise check',
  about:
    'needs_attention price_increase through a real MCP client on the demo budget at 1,500 and 100,000 transactions, and the rule alone on one payee with 1,000 to 100,000 irregular charges (its worst case).',
  run: priceRiseBench,
};
