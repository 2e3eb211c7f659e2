/**
 * Category suggestions and the review queue (issue 26): on every demo budget of seeds 1 to 5, the
 * last 60 days of categorized history held out and suggested from what came before (test/helpers/
 * holdout.ts: top-1 accuracy per confidence, and coverage, the share of held-out rows with a
 * high-confidence suggestion); and the bytes of review_transactions' default answer for 25 rows of
 * a queue as imports make it (test/helpers/review-queue.ts), through a real MCP client.
 */
import { holdout } from '../test/helpers/holdout.js';
import { mcpHarness } from '../test/helpers/mcp.js';
import { plantQueue } from '../test/helpers/review-queue.js';
import type { BenchSection, Reporter } from './section.js';

const SEEDS = [1, 2, 3, 4, 5];
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–');

export async function reviewBench(report: Reporter): Promise<void> {
  let right = 0;
  let high = 0;
  let rows = 0;
  for (const seed of SEEDS)
    for (const m of await holdout(seed)) {
      right += m.high.right;
      high += m.high.n;
      rows += m.rows;
      report.row({
        seed,
        budget: m.budget,
        'held-out rows': m.rows,
        'high: accuracy': pct(m.high.right, m.high.n),
        'high: coverage': pct(m.high.n, m.rows),
        'medium: accuracy (n)': `${pct(m.medium.right, m.medium.n)} (${m.medium.n})`,
        'low: accuracy (n)': `${pct(m.low.right, m.low.n)} (${m.low.n})`,
        'no suggestion': m.none,
      });
    }
  report.figure('top-1 accuracy of high-confidence suggestions (all seeds)', pct(right, high), { goal: '≥ 90%', met: right >= 0.9 * high });
  report.figure('coverage of high-confidence suggestions', pct(high, rows));

  const h = await mcpHarness({ sandbox: { seed: 'bench-review' } });
  try {
    await plantQueue(h);
    const res = await h.call('review_transactions', {});
    const bytes = Buffer.byteLength(res.content[0].text, 'utf8');
    report.figure('review_transactions, 25 rows, default detail', `${bytes} bytes`, { goal: '≤ 4,096 bytes', met: bytes <= 4096 });
  } finally {
    await h.close();
  }
  report.note(
    'Held out: approved, categorized transactions of budget accounts in the last 60 days (not splits, transfers or starting balances), read over HTTP.',
  );
}

export const reviewSection: BenchSection = {
  name: 'review',
  title: 'Category suggestions and the review queue',
  about:
    'Suggestion accuracy with the last 60 days of categorized history held out on every demo budget of seeds 1–5 (accuracy per confidence and coverage of high-confidence suggestions), and the bytes of the review answer for 25 rows.',
  run: reviewBench,
};
