/**
 * What apply_rules costs, through a real MCP client on the sandbox: requests to YNAB, time and the
 * answer's bytes, on a budget of 100,000 transactions. Two cases, each preview then confirm,
 * then undo_change (preview, confirm) of what it did: 500 transactions (an account's newest, the
 * issue's bound of 2 requests for a confirm) and 10,000 (the newest of the budget's). The rules
 * are set through set_rule: one that flags what an account's date range holds, with the scope given
 * by apply_rules' own since_date. Each is measured once: a confirm changes the budget.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { kb, ms, timed } from './stats.js';

/** A server on the sandbox through a real MCP client, its requests to YNAB counted. */
async function connect(sb: RunningSandbox, dir: string) {
  const c = await countingClient(sb, dir);
  const measure = async (name: string, args: Record<string, unknown>) => {
    const before = c.requests();
    const [res, took] = await timed(async () => (await c.client.callTool({ name, arguments: args })) as any);
    if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
    const bytes = Buffer.byteLength((res.content as { text?: string }[]).map((x) => x.text ?? '').join(''));
    return { body: res.structuredContent, requests: c.requests() - before, ms: took, bytes };
  };
  return { measure, close: c.close };
}

type Measure = Awaited<ReturnType<typeof connect>>['measure'];
type Measured = Awaited<ReturnType<Measure>>;

const row = (r: Reporter, call: string, m: Measured, size: string) =>
  r.row({ section: 'apply-rules', call, size, requests: m.requests, time: ms(m.ms), answer: kb(m.bytes) });

/** Past the 1 s in which a held write's plan takes the copy as fresh: each preview reads one delta, as a user's would. */
const pause = () => new Promise((done) => setTimeout(done, 1_100));

/** The earliest date from which at most `count` of the transactions (newest first) are in scope, and how many that is. */
function scopeOf(sb: RunningSandbox, count: number, accountId?: string): { since: string; held: number } {
  const dates = [...sb.state.budgets[0]!.rec.transactions.values()]
    .filter((t) => !t.deleted && (!accountId || t.account_id === accountId))
    .map((t) => t.date)
    .sort()
    .reverse();
  let since = dates[Math.min(count, dates.length) - 1]!;
  // A day is in scope whole: when the last day would go past `count`, it is left out.
  if (dates[count] === since) since = dates.find((d) => d > since) ? dates.filter((d) => d > since).at(-1)! : since;
  return { since, held: dates.filter((d) => d >= since).length };
}

async function applyCase(r: Reporter, s: { measure: Measure }, label: string, args: Record<string, unknown>, held: number): Promise<Measured> {
  await pause();
  const preview = await s.measure('apply_rules', args);
  row(r, `apply_rules: preview (${label})`, preview, `${preview.body.count} to change of ${held} in scope`);
  const confirm = await s.measure('apply_rules', { ...args, confirm_token: preview.body.confirm_token });
  row(r, `apply_rules: confirm (${label})`, confirm, `${confirm.body.updated} changed`);
  await pause();
  const undo = await s.measure('undo_change', { change_id: confirm.body.change_id });
  row(r, `undo_change: preview (${label})`, undo, `${undo.body.count} to put back`);
  const undone = await s.measure('undo_change', { change_id: confirm.body.change_id, confirm_token: undo.body.confirm_token });
  row(r, `undo_change: confirm (${label})`, undone, `${(undone.body.restored as unknown[] | undefined)?.length ?? 0} listed`);
  return confirm;
}

async function run(r: Reporter, dir: string): Promise<void> {
  const sb = await startSandbox({ seed: 'bench-apply-rules', transactions: 100_000, rateLimit: 10_000_000, log: () => {} });
  const s = await connect(sb, dir);
  try {
    const budget = sb.state.budgets[0]!;
    const total = [...budget.rec.transactions.values()].filter((t) => !t.deleted).length;
    const counts = new Map<string, number>();
    for (const t of budget.rec.transactions.values()) if (!t.deleted) counts.set(t.account_id, (counts.get(t.account_id) ?? 0) + 1);
    const [accountId] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    await s.measure('list_accounts', {}); // the budget's copy, read once (the first read of a budget is not this tool's cost)
    // Rules through set_rule: every outflow flagged purple, every inflow flagged green.
    await s.measure('set_rule', { match: { direction: 'outflow' }, set: { flag_color: 'purple' } });
    await s.measure('set_rule', { match: { direction: 'inflow' }, set: { flag_color: 'green' } });

    const small = scopeOf(sb, 500, accountId);
    const five = await applyCase(r, s, '500', { account_id: accountId, since_date: small.since }, small.held);
    r.figure('apply_rules confirm, 500 transactions: requests', String(five.requests), { goal: '≤ 2', met: five.requests <= 2 });

    const large = scopeOf(sb, 10_000);
    const ten = await applyCase(r, s, '10,000', { since_date: large.since }, large.held);
    r.figure('apply_rules confirm, 10,000 transactions: time', ms(ten.ms));
    r.figure('apply_rules confirm, 10,000 transactions: requests', String(ten.requests));
    r.note(
      `On a budget of ${total.toLocaleString('en-US')} transactions. apply_rules sends its updates 1,000 to a request, and undo_change puts them back 1,000 to a request: a confirm's requests are one read (the confirm checks YNAB now) and ⌈changed / 1000⌉.`,
    );
  } finally {
    await s.close();
    await sb.close();
  }
}

export const applyRulesSection: BenchSection = {
  name: 'apply-rules',
  title: 'House rules: apply_rules',
  about:
    'Through a real MCP client on the sandbox, on a budget of 100,000 transactions: requests to YNAB, time and answer bytes of apply_rules over 500 and over 10,000 transactions (preview, then confirm), and of undoing each (preview, then confirm).',
  async run(r) {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-apply-rules-'));
    try {
      await run(r, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
