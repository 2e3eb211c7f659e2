/**
 * debt_payoff's `schedule` (full detail: the view's chart): each month's end balances, a list a
 * month per strategy, the numbers (`owed`) beside their texts (`owed_formatted`). For every debt,
 * the total owed and each debt's; for the one debt `target_debt` names, that debt's alone, with
 * its extra paid on it alone as one more list (`target_debt`), so the answer stays that debt's size.
 */
import { formatMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import type { PlanResult } from './debt-plan.js';

/** A list ends at the month its balance reaches zero (the zeros after it say nothing). */
function paid(values: number[]): number[] {
  let last = values.length - 1;
  while (last > 0 && values[last] === 0 && values[last - 1] === 0) last--;
  return values.slice(0, last + 1);
}

/** Lists by key, and their texts under the same keys. */
function series(format: CurrencyFormat | null, lists: Record<string, number[]>) {
  const texts = Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, v.map((m) => formatMilliunits(m, format))]));
  return { owed: lists, owed_formatted: texts };
}

/** The longest plan (its months are the schedule's). */
const longest = (plans: PlanResult[]) => plans.reduce((x, p) => (p.months.length > x.months.length ? p : x), plans[0]!);

/** Every debt: the total owed per strategy, and each debt's (`debts`: its name and the same). */
export function schedule(format: CurrencyFormat | null, plans: PlanResult[], debts: readonly { name: string }[]): Record<string, unknown> {
  const months = longest(plans).months;
  const owed = (p: PlanResult, k: number) => p.balances[k] ?? debts.map(() => 0);
  const by = (values: (p: PlanResult) => number[]) => series(format, Object.fromEntries(plans.map((p) => [p.strategy, paid(values(p))])));
  return {
    months: months.map((m) => m.slice(0, 7)),
    ...by((p) => months.map((_, k) => owed(p, k).reduce((x, y) => x + y, 0))),
    debts: debts.map((d, i) => ({ name: d.name, ...by((p) => months.map((_, k) => owed(p, k)[i] ?? 0)) })),
  };
}

/** One debt (index `i` in the plans, `name`): its balances per strategy, and alone with its extra (`target_debt`), until the last is paid. */
export function oneSchedule(format: CurrencyFormat | null, plans: PlanResult[], alone: PlanResult, name: string, i: number): Record<string, unknown> {
  const all = [...plans, alone];
  const months = longest(all).months;
  const of = (p: PlanResult, k: number) => (p === alone ? p.balances[k]?.[0] : p.balances[k]?.[i]) ?? 0;
  const lists = Object.fromEntries(all.map((p) => [p === alone ? 'target_debt' : p.strategy, paid(months.map((_, k) => of(p, k)))]));
  const length = Math.max(...Object.values(lists).map((l) => l.length));
  return { debt: name, months: months.slice(0, length).map((m) => m.slice(0, 7)), ...series(format, lists) };
}
