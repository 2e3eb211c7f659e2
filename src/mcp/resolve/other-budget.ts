/**
 * An id of another budget, refused before any request (issue 57): an account, category, payee,
 * transaction or scheduled transaction id of "Haushalt Berlin" passed with the budget_id of "Demo
 * Household" would go to YNAB and come back as its 400 or 404, naming neither budget, and cost a
 * request. The copies the server already holds in memory tell which budget owns it; an id that is
 * in none of them is passed on as before (no copy is synced to look).
 */
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { looksLikeId, NAMED_MAPS } from './names.js';

/** What a budget's copy holds by id, and how an error names each kind. */
const KINDS: readonly { word: string; of: (r: BudgetReplica) => ReadonlyMap<string, unknown>; name: (e: any) => string }[] = [
  { word: 'account', of: (r) => r.accounts, name: (a) => JSON.stringify(a.name) },
  { word: 'category', of: (r) => r.categories, name: (c) => JSON.stringify(c.name) },
  { word: 'category group', of: (r) => r.categoryGroups, name: (g) => JSON.stringify(g.name) },
  { word: 'payee', of: (r) => r.payees, name: (p) => JSON.stringify(p.name) },
  { word: 'transaction', of: (r) => r.transactions, name: (t) => `of ${t.date}${t.payee_name ? ` at ${JSON.stringify(t.payee_name)}` : ''}` },
  {
    word: 'scheduled transaction',
    of: (r) => r.scheduled,
    name: (t) => `of ${t.date_next ?? t.date_first}${t.payee_name ? ` at ${JSON.stringify(t.payee_name)}` : ''}`,
  },
];

/** Every id in the arguments with where it is (a map's keys too: approve_transactions' transaction ids); not budget_id. */
function idsIn(args: unknown, path = ''): { path: string; id: string }[] {
  const out: { path: string; id: string }[] = [];
  if (typeof args === 'string') return looksLikeId(args) ? [{ path, id: args }] : [];
  if (Array.isArray(args)) args.forEach((x, i) => out.push(...idsIn(x, `${path}[${i}]`)));
  else if (args && typeof args === 'object') {
    for (const [k, v] of Object.entries(args)) {
      if (!path && k === 'budget_id') continue;
      const here = path ? `${path}.${k}` : k;
      if (NAMED_MAPS[k] && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const key of Object.keys(v)) if (looksLikeId(key)) out.push({ path: `${here} key`, id: key });
      }
      out.push(...idsIn(v, here));
    }
  }
  return out;
}

/** The kind and name of `id` in this copy, when it holds it. */
function owned(r: BudgetReplica, id: string): string | undefined {
  for (const k of KINDS) {
    const e = k.of(r).get(id);
    if (e) return `the ${k.word} ${k.name(e)}`;
  }
  return undefined;
}

/**
 * Refuses an id that a copy of another budget holds and this budget's copy (when held) does not,
 * naming the budget that owns it. Reads only what is in memory: no request, no sync.
 */
export function refuseOtherBudgetsIds(args: Record<string, unknown>, budgetId: string, held: readonly BudgetReplica[]): void {
  const others = held.filter((r) => r.summary.id !== budgetId);
  if (!others.length) return;
  const own = held.find((r) => r.summary.id === budgetId);
  for (const { path, id } of idsIn(args)) {
    if (own && owned(own, id)) continue;
    for (const r of others) {
      const what = owned(r, id);
      if (!what) continue;
      const target = own ? `${JSON.stringify(own.summary.name)} (id ${budgetId})` : `the budget ${budgetId}`;
      throw new ArgumentError(
        `${path} ${JSON.stringify(id)} is ${what} of the budget ${JSON.stringify(r.summary.name)} (id ${r.summary.id}), not of ${target}, which this call uses. ` +
          `Pass budget_id ${JSON.stringify(r.summary.id)} to use it there, or give an id or name from ${own ? JSON.stringify(own.summary.name) : 'this budget'}. Nothing was sent to YNAB.`,
      );
    }
  }
}
