/**
 * The sandbox's own arithmetic checked against the figures YNAB computed: every month's totals,
 * every category's assigned, activity and available in every month the export holds, each target's
 * figures there, and every account's balances. Each figure that differs is reported (month,
 * category, both figures) and kept as a difference, so the export's figure is what is served
 * (src/sandbox/store/export-figures.ts).
 */
import type { Derived, GoalView } from '../store/derived.js';
import type { BudgetRec, ExportFigures, FigureDiff, GoalDiff, MonthDiff } from '../store/records.js';
import type { CheckedExport } from './check-export.js';
import type { Json } from './read-export.js';

export interface Disagreement {
  /** YYYY-MM-01, or null for an account's balance. */
  month: string | null;
  /** The category's (or account's) id, or null for a month's total. */
  id: string | null;
  name: string;
  field: string;
  export: number | null;
  sandbox: number | null;
}

/** How many of the export's figures of one kind the sandbox's own arithmetic reproduces. */
export interface Tally {
  agreed: number;
  compared: number;
}

export interface FiguresReport {
  /** Assigned, activity and available of every category in every month of the export. */
  categoryMonths: Tally;
  /** Each month's income, assigned, activity, Ready to Assign and age of money. */
  months: Tally;
  goals: Tally;
  accounts: Tally;
  disagreements: Disagreement[];
  /** Months of the export the sandbox serves no figures for. */
  notes: string[];
}

const GOAL_FIELDS: [keyof GoalView, string][] = [
  ['percentage_complete', 'goal_percentage_complete'],
  ['months_to_budget', 'goal_months_to_budget'],
  ['under_funded', 'goal_under_funded'],
  ['overall_funded', 'goal_overall_funded'],
  ['overall_left', 'goal_overall_left'],
];

const numOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);

class Comparer {
  readonly report: FiguresReport = {
    categoryMonths: { agreed: 0, compared: 0 },
    months: { agreed: 0, compared: 0 },
    goals: { agreed: 0, compared: 0 },
    accounts: { agreed: 0, compared: 0 },
    disagreements: [],
    notes: [],
  };

  /** Counts one figure; returns the difference to keep (export less sandbox). */
  figure(tally: Tally, where: Omit<Disagreement, 'export' | 'sandbox'>, theirs: number | null, ours: number | null): number {
    tally.compared += 1;
    if (theirs === ours) return ((tally.agreed += 1), 0);
    this.report.disagreements.push({ ...where, export: theirs, sandbox: ours });
    return (theirs ?? 0) - (ours ?? 0);
  }
}

function compareCategory(cmp: Comparer, b: BudgetRec, own: Derived, month: string, c: Json, diff: MonthDiff): void {
  const id = String(c.id);
  const rec = b.categories.get(id);
  const name = rec?.name ?? String(c.name);
  const f = own.monthIndex.get(month)?.categories.get(id) ?? { budgeted: 0, activity: 0, balance: 0, carry: 0 };
  const figures: FigureDiff = [
    cmp.figure(cmp.report.categoryMonths, { month, id, name, field: 'budgeted' }, numOrNull(c.budgeted), f.budgeted),
    cmp.figure(cmp.report.categoryMonths, { month, id, name, field: 'activity' }, numOrNull(c.activity), f.activity),
    cmp.figure(cmp.report.categoryMonths, { month, id, name, field: 'balance' }, numOrNull(c.balance), f.balance),
  ];
  if (figures.some((x) => x !== 0)) diff.categories[id] = figures;
  const goal = rec ? own.goal(rec, month) : null;
  if (!goal) return;
  const goals = {} as GoalDiff;
  let differs = false;
  for (const [key, field] of GOAL_FIELDS) {
    const theirs = numOrNull(c[field]);
    const d = cmp.figure(cmp.report.goals, { month, id, name, field }, theirs, goal[key]);
    goals[key] = theirs === null ? null : d;
    differs ||= theirs === null ? goal[key] !== null : d !== 0;
  }
  if (differs) diff.goals[id] = goals;
}

function compareMonth(cmp: Comparer, b: BudgetRec, own: Derived, m: Json): MonthDiff | undefined {
  const month = String(m.month);
  const mine = own.monthIndex.get(month);
  if (!mine) {
    cmp.report.notes.push(`month ${month}: outside the months the sandbox serves (${own.firstMonth} to ${own.lastMonth}); its figures are not served`);
    return undefined;
  }
  const total = (field: 'income' | 'budgeted' | 'activity' | 'to_be_budgeted' | 'age_of_money') =>
    cmp.figure(cmp.report.months, { month, id: null, name: 'month', field }, numOrNull(m[field]), mine[field]);
  const diff: MonthDiff = {
    income: total('income'),
    budgeted: total('budgeted'),
    activity: total('activity'),
    to_be_budgeted: total('to_be_budgeted'),
    age_of_money: (total('age_of_money'), numOrNull(m.age_of_money)),
    categories: {},
    goals: {},
  };
  for (const c of (m.categories ?? []) as Json[]) if (c.deleted !== true) compareCategory(cmp, b, own, month, c, diff);
  return diff;
}

export function compareFigures(e: CheckedExport, b: BudgetRec, own: Derived): { figures: ExportFigures; report: FiguresReport } {
  const cmp = new Comparer();
  const figures: ExportFigures = { last_month: '', months: {}, accounts: {} };
  for (const m of e.months) {
    if (m.deleted === true) continue;
    const diff = compareMonth(cmp, b, own, m);
    if (!diff) continue;
    figures.months[String(m.month)] = diff;
    if (String(m.month) > figures.last_month) figures.last_month = String(m.month);
  }
  for (const a of e.accounts) {
    if (a.deleted === true) continue;
    const id = String(a.id);
    const mine = own.balances.get(id) ?? { balance: 0, cleared: 0, uncleared: 0 };
    const at = (field: string, theirs: unknown, ours: number) =>
      cmp.figure(cmp.report.accounts, { month: null, id, name: String(a.name), field }, numOrNull(theirs), ours);
    const d: [number, number, number] = [
      at('balance', a.balance, mine.balance),
      at('cleared_balance', a.cleared_balance, mine.cleared),
      at('uncleared_balance', a.uncleared_balance, mine.uncleared),
    ];
    if (d.some((x) => x !== 0)) figures.accounts[id] = d;
  }
  return { figures, report: cmp.report };
}
