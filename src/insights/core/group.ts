/**
 * Lines summed by category, category group, payee, account or month: outflow, inflow, net and
 * how many lines, exactly (integer milliunits). The largest groups are kept and the rest summed
 * into one "everything else" row, so an answer stays small whatever the budget holds.
 */
import { monthOf } from '../../api/dates.js';
import { sumMilliunits } from '../../api/money.js';
import type { BudgetView, Line } from './view.js';

export const GROUP_BY = ['category', 'category_group', 'payee', 'account', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export interface Sums {
  outflow: number;
  inflow: number;
  net: number;
  count: number;
}

export interface Group extends Sums {
  id: string | null;
  name: string;
}

/** The group a line falls in: its id (a month for `month`) and name. */
export function keyOf(view: BudgetView, line: Line, by: GroupBy): { id: string | null; name: string } {
  switch (by) {
    case 'category': {
      const id = view.categoryOf(line);
      return { id, name: view.categoryName(line) ?? 'No category' };
    }
    case 'category_group': {
      const group = view.groupOf(view.categoryOf(line));
      return { id: group?.id ?? null, name: group?.name ?? 'No category' };
    }
    case 'payee':
      return { id: line.payee_id, name: view.payeeName(line.payee_id) ?? 'No payee' };
    case 'account':
      return { id: line.account_id, name: view.accountName(line.account_id) };
    case 'month':
      return { id: monthOf(line.date), name: monthOf(line.date) };
  }
}

export function sums(lines: readonly Line[]): Sums {
  const outflow = sumMilliunits(lines.filter((l) => l.amount < 0).map((l) => l.amount));
  const inflow = sumMilliunits(lines.filter((l) => l.amount > 0).map((l) => l.amount));
  return { outflow, inflow, net: outflow + inflow, count: lines.length };
}

/** Lines grouped, each group with its sums. */
export function groupLines(view: BudgetView, lines: readonly Line[], by: GroupBy): Group[] {
  const groups = new Map<string, { id: string | null; name: string; lines: Line[] }>();
  for (const line of lines) {
    const key = keyOf(view, line, by);
    const k = key.id ?? `name:${key.name}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { ...key, lines: [] }));
    g.lines.push(line);
  }
  return [...groups.values()].map((g) => ({ id: g.id, name: g.name, ...sums(g.lines) }));
}

/**
 * Orders groups (months by date; others by spending, the largest outflow first, then by net) and
 * keeps `top` of them; `others` are the rest (months are never cut).
 */
export function topGroups(groups: Group[], by: GroupBy, top: number): { rows: Group[]; others: Group[] } {
  const sorted =
    by === 'month'
      ? [...groups].sort((a, b) => (a.name < b.name ? -1 : 1))
      : [...groups].sort((a, b) => a.outflow - b.outflow || a.net - b.net || a.name.localeCompare(b.name));
  if (by === 'month' || sorted.length <= top) return { rows: sorted, others: [] };
  return { rows: sorted.slice(0, top), others: sorted.slice(top) };
}

/** Several groups summed into one row. */
export function combined(groups: readonly Group[], name: string): Group {
  const total = (k: keyof Sums) => sumMilliunits(groups.map((g) => g[k]));
  return { id: null, name, outflow: total('outflow'), inflow: total('inflow'), net: total('net'), count: total('count') };
}
