/**
 * The figures of a budget loaded from an export (`--from`) are YNAB's, not the sandbox's: at load,
 * each of YNAB's month, category, goal and account figures is kept as its difference from what the
 * sandbox computes itself (src/sandbox/export/compare-figures.ts), and every computation adds the
 * difference back. At load the answers are the export's figures exactly; once someone writes on
 * top, a figure moves by what the write changes in the sandbox's own arithmetic (a purchase of 10
 * lowers YNAB's available by 10), never back to the sandbox's own figure.
 *
 * Months after the export's last carry its available and Ready to Assign differences on (money
 * left in a category stays there); their activity and assigned amounts are the sandbox's own.
 * Goal fields the export shows as null stay null. The age of money is the export's, for its months.
 */
import type { CategoryFigures, GoalView } from './goals.js';
import type { CategoryRec, ExportFigures, FigureDiff, GoalDiff, MonthDiff } from './records.js';

/** The part of derived.ts's figures this changes (declared here: derived.ts calls this). */
interface MonthFigures {
  month: string;
  income: number;
  budgeted: number;
  activity: number;
  to_be_budgeted: number;
  age_of_money: number | null;
  categories: Map<string, CategoryFigures>;
}
interface Derived {
  balances: Map<string, { balance: number; cleared: number; uncleared: number }>;
  months: MonthFigures[];
  goal(category: CategoryRec, month: string): GoalView | null;
}

/** What a month after the export's last takes from it: only what carries over. */
function carried(last: MonthDiff | undefined): MonthDiff | undefined {
  if (!last) return undefined;
  const categories: Record<string, FigureDiff> = {};
  for (const [id, [, , balance]] of Object.entries(last.categories)) if (balance !== 0) categories[id] = [0, 0, balance];
  return { income: 0, budgeted: 0, activity: 0, to_be_budgeted: last.to_be_budgeted, age_of_money: null, categories, goals: {} };
}

function applyMonth(m: MonthFigures, diff: MonthDiff, own: boolean): void {
  m.income += diff.income;
  m.budgeted += diff.budgeted;
  m.activity += diff.activity;
  m.to_be_budgeted += diff.to_be_budgeted;
  if (!own) m.age_of_money = diff.age_of_money;
  for (const [id, [budgeted, activity, balance]] of Object.entries(diff.categories)) {
    const f = m.categories.get(id) ?? { budgeted: 0, activity: 0, balance: 0, carry: 0 };
    m.categories.set(id, { budgeted: f.budgeted + budgeted, activity: f.activity + activity, balance: f.balance + balance, carry: f.carry });
  }
}

function withGoal(g: GoalView, diff: GoalDiff): GoalView {
  const out = { ...g };
  for (const key of Object.keys(diff) as (keyof GoalView)[]) {
    const d = diff[key];
    out[key] = d === null ? null : (g[key] ?? 0) + d;
  }
  return out;
}

/** The sandbox's own figures `d` with the export's differences added back (in place). */
export function withExportFigures<D extends Derived>(d: D, x: ExportFigures): D {
  for (const [id, [balance, cleared, uncleared]] of Object.entries(x.accounts)) {
    const b = d.balances.get(id);
    if (b) d.balances.set(id, { balance: b.balance + balance, cleared: b.cleared + cleared, uncleared: b.uncleared + uncleared });
  }
  const after = carried(x.months[x.last_month]);
  for (const m of d.months) {
    const diff = x.months[m.month];
    if (diff) applyMonth(m, diff, false);
    else if (after && m.month > x.last_month) applyMonth(m, after, true);
  }
  const own = d.goal.bind(d);
  d.goal = (c, month) => {
    const g = own(c, month);
    const diff = x.months[month]?.goals[c.id];
    return g && diff ? withGoal(g, diff) : g;
  };
  return d;
}
