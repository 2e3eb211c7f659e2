/**
 * What the statement tools cost, through a real MCP client on the sandbox: requests to YNAB,
 * time and the answer's bytes for a 500-row import_statement (50 rows matching hand-entered
 * uncleared transactions, 450 new; preview, then confirm), and for reconcile_account on a budget
 * of 100,000 transactions (the account with the most, at a zero difference; preview, then
 * confirm). Each is measured once: a confirm changes the budget, so a second run is another case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { addDays } from '../src/api/dates.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { kb, ms, timed } from './stats.js';

const today = new Date().toISOString().slice(0, 10);

/** A server on the sandbox through a real MCP client, its requests to YNAB counted. */
async function connect(sb: RunningSandbox, dir: string) {
  const c = await countingClient(sb, dir);
  /** One call: its answer, requests, time and bytes (the text the model reads). */
  const measure = async (name: string, args: Record<string, unknown>) => {
    const before = c.requests();
    const [res, took] = await timed(async () => (await c.client.callTool({ name, arguments: args })) as any);
    if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
    const bytes = Buffer.byteLength((res.content as { text?: string }[]).map((c) => c.text ?? '').join(''));
    return { body: res.structuredContent, requests: c.requests() - before, ms: took, bytes };
  };
  return { measure, close: c.close };
}

type Measured = Awaited<ReturnType<Awaited<ReturnType<typeof connect>>['measure']>>;
const row = (r: Reporter, call: string, m: Measured, size: string) =>
  r.row({ section: 'statement', call, size, requests: m.requests, time: ms(m.ms), answer: kb(m.bytes) });

/** The sandbox's own records (in-process): an account's live transactions. */
function transactionsOf(sb: RunningSandbox, accountId: string) {
  return [...sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.account_id === accountId);
}

async function importBench(r: Reporter, dir: string): Promise<void> {
  const sb = await startSandbox({ seed: 'bench-statement', rateLimit: 10_000_000, log: () => {} });
  const s = await connect(sb, join(dir, 'import'));
  try {
    const budget = sb.state.budgets[0]!;
    const account = [...budget.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!;
    const taken = new Set(transactionsOf(sb, account.id).map((t) => t.amount));
    let next = -40_010;
    const amount = () => {
      while (taken.has(next)) next -= 10;
      taken.add(next);
      return next;
    };
    // 50 hand-entered uncleared transactions for the file to match, entered over HTTP beside the server.
    const typed: { date: string; amount: number; payee: string }[] = [];
    for (let i = 0; i < 50; i++) {
      const t = { date: addDays(today, -2 - (i % 80)), amount: amount(), payee: `Corner Bakery ${i}` };
      const res = await fetch(`${sb.baseUrl}/budgets/${budget.id}/transactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction: { account_id: account.id, date: t.date, amount: t.amount, payee_name: t.payee, cleared: 'uncleared' } }),
      });
      if (!res.ok) throw new Error(`planting: ${res.status} ${await res.text()}`);
      typed.push(t);
    }
    const fresh = Array.from({ length: 450 }, (_, i) => ({ date: addDays(today, -1 - (i % 90)), amount: amount(), payee: `Shop ${i % 60}` }));
    const decimal = (m: number) => `${m < 0 ? '-' : ''}${Math.floor(Math.abs(m) / 1000)}.${String(Math.floor((Math.abs(m) % 1000) / 10)).padStart(2, '0')}`;
    const content = stringify([['Date', 'Payee', 'Amount'], ...[...typed, ...fresh].map((t) => [t.date, t.payee, decimal(t.amount)])]);
    const args = { account_id: account.id, content, columns: { date: 'Date', payee: 'Payee', amount: 'Amount' } };
    await new Promise((done) => setTimeout(done, 1_100)); // past the held write's 1 s: the preview reads one delta
    const preview = await s.measure('import_statement', args);
    row(r, 'import_statement: preview', preview, `500 rows (${kb(Buffer.byteLength(content))})`);
    const confirm = await s.measure('import_statement', { ...args, confirm_token: preview.body.confirm_token });
    row(r, 'import_statement: confirm', confirm, `${confirm.body.created} created, ${confirm.body.cleared} cleared`);
    r.figure('import_statement confirm, 500 rows: requests', String(confirm.requests), { goal: '≤ 3', met: confirm.requests <= 3 });
  } finally {
    await s.close();
    await sb.close();
  }
}

async function reconcileBench(r: Reporter, dir: string): Promise<void> {
  const sb = await startSandbox({ seed: 'bench-statement-large', transactions: 100_000, rateLimit: 10_000_000, log: () => {} });
  const s = await connect(sb, join(dir, 'reconcile'));
  try {
    const budget = sb.state.budgets[0]!;
    const total = [...budget.rec.transactions.values()].filter((t) => !t.deleted).length;
    // The account with the most transactions.
    const counts = new Map<string, number>();
    for (const t of budget.rec.transactions.values()) if (!t.deleted) counts.set(t.account_id, (counts.get(t.account_id) ?? 0) + 1);
    const [accountId, held] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const upTo = transactionsOf(sb, accountId).filter((t) => t.date <= today);
    const cleared = upTo.filter((t) => t.cleared !== 'uncleared').reduce((n, t) => n + t.amount, 0);
    await s.measure('list_accounts', {}); // the budget's copy, read once (the first read of a budget is not this tool's cost)
    await new Promise((done) => setTimeout(done, 1_100));
    const args = { account_id: accountId, statement_balance_milliunits: cleared };
    const preview = await s.measure('reconcile_account', args);
    const size = `${total} in the budget, ${held} in the account`;
    row(r, 'reconcile_account: preview', preview, size);
    const confirm = await s.measure('reconcile_account', { ...args, confirm_token: preview.body.confirm_token });
    row(r, 'reconcile_account: confirm', confirm, `${confirm.body.reconciled} reconciled`);
    r.note(`reconcile_account sends its updates 1,000 to a request: the confirm's requests are one delta and ⌈to reconcile / 1000⌉.`);
  } finally {
    await s.close();
    await sb.close();
  }
}

export const statementSection: BenchSection = {
  name: 'statement',
  title: 'Statements: import_statement and reconcile_account',
  about:
    'Through a real MCP client on the sandbox: requests to YNAB, time and answer bytes for a 500-row import (50 rows matching hand-entered transactions, 450 new; preview, then confirm) and a reconcile at a zero difference on a budget of 100,000 transactions (preview, then confirm).',
  async run(r) {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-statement-'));
    try {
      await importBench(r, dir);
      await reconcileBench(r, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
