/**
 * The API's own data for the insight tests, read over HTTP from the sandbox (`sb.get`), and the
 * few rules of YNAB counting written out again here, independently of src/insights: which lines
 * of which transactions are budget activity, how a category's month activity adds up, what an
 * amount looks like in US dollars. The tests compare the tools' answers with these.
 */
import type { TestSandbox } from '../helpers/sandbox.js';

export interface Raw {
  budget: any;
  b: string;
  accounts: any[];
  account: Map<string, any>;
  categories: any[];
  category: Map<string, any>;
  groups: any[];
  payees: any[];
  transactions: any[];
  scheduled: any[];
  months: any[];
  month(m: string): Promise<any>;
  /** The id of "Inflow: Ready to Assign" and of "Uncategorized". */
  rta: string;
  uncategorized: string;
}

export async function raw(sb: TestSandbox, name = 'Demo Household'): Promise<Raw> {
  const budget = (await sb.get('/budgets')).body.data.budgets.find((x: any) => x.name === name);
  const b = `/budgets/${budget.id}`;
  const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted);
  const groups = (await sb.get(`${b}/categories`)).body.data.category_groups;
  const categories = groups.flatMap((g: any) => g.categories.map((c: any) => ({ ...c, group: g })));
  const payees = (await sb.get(`${b}/payees`)).body.data.payees;
  const transactions = (await sb.get(`${b}/transactions?since_date=1990-01-01`)).body.data.transactions.filter((t: any) => !t.deleted);
  const scheduled = (await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions.filter((s: any) => !s.deleted);
  const months = (await sb.get(`${b}/months`)).body.data.months;
  const cache = new Map<string, any>();
  return {
    budget,
    b,
    accounts,
    account: new Map(accounts.map((a: any) => [a.id, a])),
    categories,
    category: new Map(categories.map((c: any) => [c.id, c])),
    groups,
    payees,
    transactions,
    scheduled,
    months,
    async month(m) {
      if (!cache.has(m)) cache.set(m, (await sb.get(`${b}/months/${m}`)).body.data.month);
      return cache.get(m);
    },
    rta: categories.find((c: any) => c.name === 'Inflow: Ready to Assign').id,
    uncategorized: categories.find((c: any) => c.name === 'Uncategorized').id,
  };
}

export interface RawLine {
  t: any;
  id: string;
  date: string;
  amount: number;
  account_id: string;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  memo: string | null;
}

/** A transaction's lines: its split lines, or itself. */
export function rawLines(t: any): RawLine[] {
  const subs = (t.subtransactions ?? []).filter((x: any) => !x.deleted);
  if (!subs.length)
    return [
      {
        t,
        id: t.id,
        date: t.date,
        amount: t.amount,
        account_id: t.account_id,
        payee_id: t.payee_id,
        category_id: t.category_id,
        transfer_account_id: t.transfer_account_id,
        memo: t.memo,
      },
    ];
  return subs.map((x: any) => ({
    t,
    id: x.id,
    date: t.date,
    amount: x.amount,
    account_id: t.account_id,
    payee_id: x.payee_id ?? t.payee_id,
    category_id: x.category_id,
    transfer_account_id: x.transfer_account_id,
    memo: x.memo,
  }));
}

/**
 * Budget activity as YNAB counts it: on a budget account; not a transfer to another budget
 * account; not income to Ready to Assign (where a budget account's starting balance goes, unless
 * it was given to a category); not a tracking account's starting balance.
 */
export function isActivity(r: Raw, l: RawLine, offBudgetToo = false): boolean {
  const onBudget = r.account.get(l.account_id)?.on_budget === true;
  if (!onBudget && !offBudgetToo) return false;
  if (l.transfer_account_id && !(onBudget && r.account.get(l.transfer_account_id)?.on_budget === false)) return false;
  if (!onBudget && l.t.payee_name === 'Starting Balance' && !l.transfer_account_id) return false;
  return l.category_id !== r.rta;
}

/** Every activity line in [since, until]. */
export function activityLines(r: Raw, since: string, until: string, offBudgetToo = false): RawLine[] {
  return r.transactions.flatMap(rawLines).filter((l) => l.date >= since && l.date <= until && isActivity(r, l, offBudgetToo));
}

/** The category a line counts in (Uncategorized for a budget line without one). */
export function categoryOf(r: Raw, l: RawLine): string | null {
  return l.category_id ?? (r.account.get(l.account_id)?.on_budget ? r.uncategorized : null);
}

export function sumsOf(lines: RawLine[]): { outflow: number; inflow: number; net: number; count: number } {
  let outflow = 0;
  let inflow = 0;
  for (const l of lines)
    if (l.amount < 0) outflow += l.amount;
    else inflow += l.amount;
  return { outflow, inflow, net: outflow + inflow, count: lines.length };
}

/** US dollars as the budget shows them: -$1,234.56. */
export function usd(milliunits: number): string {
  const cents = Math.round(Math.abs(milliunits) / 10);
  const whole = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${milliunits < 0 && cents > 0 ? '-' : ''}$${whole}.${String(cents % 100).padStart(2, '0')}`;
}

export function lastDay(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export function shiftMonth(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

export const todayUtc = () => new Date().toISOString().slice(0, 10);
export const thisMonth = () => `${todayUtc().slice(0, 7)}-01`;

export type Detail = 'compact' | 'full';

/** A US-dollar text back to milliunits ("-$1,234.56" → -1234560), for figures a compact answer gives as text only. */
export function dollars(text: string): number {
  const m = /^(-?)\$([\d,]+)\.(\d\d)$/.exec(text);
  if (!m) throw new Error(`not a dollar amount: ${text}`);
  return (m[1] ? -1 : 1) * (Number(m[2]!.replace(/,/g, '')) * 1000 + Number(m[3]) * 10);
}

/**
 * Figures as an insight answer writes them, from expectations computed here: each as milliunits
 * and in US dollars, in both details (issue 43: compact rows too). `detail` and `headline` are
 * kept for the callers: they once told a compact row's milliunits-only figures apart.
 */
export function written(_detail: Detail, figures: Record<string, number>, _headline = false): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [k, v] of Object.entries(figures)) {
    out[`${k}`] = v;
    out[`${k}_formatted`] = usd(v);
  }
  return out;
}

/** Outflow and inflow as written: always in full detail; in compact only when money went both ways (else the net says it). */
export function flowsWritten(detail: Detail, outflow: number, inflow: number, headline = false): Record<string, number | string> {
  return detail === 'full' || (outflow !== 0 && inflow !== 0) ? written(detail, { outflow, inflow }, headline) : {};
}
