/**
 * What a payee filter leaves out that a person may have meant with it: a filter by payee is that
 * one payee ("REWE"), and payees whose names hold its name ("REWE City") are other payees, so
 * their transactions are not counted. One line names them, with how many of their lines the rest
 * of the filter matches: "also: REWE City, 13 transactions, not counted". Every tool that takes
 * the filter (search_transactions, spending_summary, the filter writes) says it with this.
 */
import { foldText, wordStarts } from '../../shared/text.js';
import { lineFilter, type FilterArgs } from './filter.js';
import type { BudgetView, Line } from './view.js';

/** Whether `name` holds `word` at the start of one of its words (case and accents aside). */
function holds(name: string, word: string): boolean {
  const n = foldText(name);
  return wordStarts(n).some((at) => n.startsWith(word, at));
}

/** The line, or undefined when the filter names no payee or no other payee's name holds its name. `lines`: what the tool counts from. */
export function payeesLeftOut(view: BudgetView, f: FilterArgs, digits: number | undefined, lines: readonly Line[]): string | undefined {
  const name = view.payeeName(f.payee_id ?? null);
  if (!name || !foldText(name).trim()) return undefined;
  const word = foldText(name).trim();
  const others = [...view.replica.payees.values()].filter((p) => !p.deleted && !p.transfer_account_id && p.id !== f.payee_id && holds(p.name, word));
  const counted = others
    .map((p) => ({ name: p.name, n: lines.filter(lineFilter(view, { ...f, payee_id: p.id }, digits)).length }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n || (a.name < b.name ? -1 : 1));
  if (!counted.length) return undefined;
  const each = counted.map((x) => `${x.name}, ${x.n} transaction${x.n === 1 ? '' : 's'}`).join('; ');
  const how = counted.length === 1 ? `payee_id ${JSON.stringify(counted[0]!.name)} counts them` : 'each by its payee_id counts them';
  return `also: ${each}, not counted (${how}).`;
}
