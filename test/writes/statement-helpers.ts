/**
 * What the statement tests share: the account's transactions as the API gives them (raw), a CSV
 * statement written from rows, a fault-free way into the sandbox, and amounts no transaction of the account holds near a date (so a
 * row of that amount is new, whatever YNAB's matching would look at).
 */
import { addDays } from '../../src/api/dates.js';
import { runOperation } from '../../src/sandbox/api-router.js';
import { encodeBody } from '../../src/sandbox/json.js';
import type { McpHarness } from '../helpers/mcp.js';

export interface Row {
  date: string;
  payee: string;
  amount: number;
}

export const COLUMNS = { date: 'Date', payee: 'Payee', amount: 'Amount', date_format: 'YYYY-MM-DD' } as const;

/** Milliunits as the decimal a bank writes ("-12.30"): digits, never float arithmetic. */
export function decimal(m: number): string {
  const sign = m < 0 ? '-' : '';
  const abs = Math.abs(m);
  return `${sign}${Math.floor(abs / 1000)}.${String(Math.floor((abs % 1000) / 10)).padStart(2, '0')}`;
}

export function csv(rows: readonly Row[]): string {
  return ['Date,Payee,Amount', ...rows.map((r) => `${r.date},"${r.payee.replace(/"/g, '""')}",${decimal(r.amount)}`)].join('\n') + '\n';
}

/** The account's transactions, from the API (not deleted). */
export async function rawTransactions(h: McpHarness, budget: string, account: string, since = '2000-01-01'): Promise<any[]> {
  const res = await h.sb.get(`/budgets/${budget}/accounts/${account}/transactions?since_date=${since}`);
  return (res.body.data.transactions as any[]).filter((t) => !t.deleted);
}

/** An outflow of whole cents that no transaction of the account has within 10 days of `date`, and not in `used`. */
export function freeAmount(txns: readonly any[], date: string, used: Set<number>, start: number): number {
  const near = new Set(txns.filter((t) => t.date >= addDays(date, -10) && t.date <= addDays(date, 10)).map((t) => t.amount));
  for (let m = start; ; m -= 10) {
    if (!near.has(m) && !used.has(m)) {
      used.add(m);
      return m;
    }
  }
}

/** A request the sandbox runs in-process, as its HTTP API would (no injected fault can touch it); the answer's data. */
export function sandboxDirect(h: McpHarness, method: string, path: string, body?: unknown): any {
  const auth = h.sb.tokens.authenticate(h.sb.accessToken);
  if (!auth.ok) throw new Error(auth.detail);
  const answer = runOperation(h.sb.state, {
    method,
    path,
    query: new URLSearchParams(),
    body: body === undefined ? '' : JSON.stringify(body),
    token: auth.info,
  });
  if (answer.status >= 300) throw new Error(`sandbox ${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return JSON.parse(Buffer.concat(encodeBody(answer.body)).toString('utf8')).data;
}
