/**
 * suggest_rules at 100,000 transactions (issue 34 item 9): how long the call takes once the
 * budget's copy is synced (p50 of 5, through a real MCP client against the sandbox over HTTP),
 * and the bytes of its default answer. apply_rules has its own section.
 */
import { mcpHarness } from '../test/helpers/mcp.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, timed } from './stats.js';

export async function suggestRulesBench(report: Reporter): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const h = await mcpHarness({ sandbox: { seed: 'bench', transactions: n, rateLimit: 10_000_000 } });
    try {
      const [, first] = await timed(() => h.call('list_accounts', {}));
      const times: number[] = [];
      let answer: any;
      for (let i = 0; i < 5; i++) {
        const [res, t] = await timed(() => h.call('suggest_rules', {}));
        times.push(t);
        answer = res;
      }
      if (answer.isError) throw new Error(`suggest_rules failed: ${answer.content[0].text}`);
      const bytes = Buffer.byteLength(answer.content[0].text, 'utf8');
      const s = answer.structuredContent;
      report.row({
        transactions: n,
        'suggest_rules p50': ms(median(times)),
        'answer bytes': bytes,
        suggestions: `${s.returned} of ${s.count}`,
        'first sync': ms(first),
      });
      if (n === 100_000) {
        report.figure('suggest_rules at 100,000 transactions (p50 of 5, copy synced)', ms(median(times)), { goal: '≤ 1,000 ms', met: median(times) <= 1000 });
        report.figure('suggest_rules default answer at 100,000 transactions', `${bytes} bytes`, { goal: '≤ 4,096 bytes', met: bytes <= 4096 });
      }
    } finally {
      await h.close();
    }
  }
  report.note('The demo budget of seed "bench"; each call recomputes from the copy (nothing is cached between calls).');
}

export const suggestRulesSection: BenchSection = {
  name: 'suggest-rules',
  title: 'Suggested house rules',
  about: 'suggest_rules at 1,500 and 100,000 transactions: milliseconds per call once the copy is synced, and the bytes of its default answer.',
  run: suggestRulesBench,
};
