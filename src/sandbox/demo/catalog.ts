/**
 * Shapes shared by the demo catalogs (categories with their targets, merchants) and the turning
 * of a target description into the GoalRec the store keeps. Targets are described relative to
 * "today" so that dates in them (a savings deadline, a yearly bill) stay meaningful whatever
 * day the demo is generated.
 */
import { addMonths, monthOf } from '../../api/dates.js';
import type { GoalRec } from '../store/records.js';
import type { Policy } from './budgeting.js';

export type TargetSpec =
  /** TB: have a balance of `target`. */
  | { kind: 'balance'; target: number }
  /** TBD: have `target` by a date `monthsAhead` months from now. */
  | { kind: 'byDate'; target: number; monthsAhead: number }
  /** MF: assign `target` every month. */
  | { kind: 'monthly'; target: number }
  /** NEED monthly: set aside (whole) or refill up to `target`, due on `day` (null: month end). */
  | { kind: 'need'; target: number; whole: boolean; day?: number }
  /** NEED weekly: `target` a week, due on `weekday` (0 = Sunday). */
  | { kind: 'weekly'; target: number; weekday: number }
  /** NEED yearly: `target` due every year on `due` ("MM-DD"). */
  | { kind: 'yearly'; target: number; due: string }
  /** DEBT: pay `target` monthly on `day`. */
  | { kind: 'debt'; target: number; day: number };

export interface CategoryPlan {
  key: string;
  name: string;
  target?: TargetSpec;
  /** Months after the first month when the target was set (default: from the start). */
  targetFrom?: number;
  note?: string;
  /** Default 'cover'. */
  policy?: Policy;
  /** Most a target may ask for in one month (grows with the household, like `scales`). */
  cap?: number;
  /** The target's amount is what the household usually spends here (per week for a weekly one). */
  habitTarget?: boolean;
  /** The target's amount grows with the household's spending (a bigger household keeps bigger reserves). */
  scales?: boolean;
}

export interface GroupPlan {
  name: string;
  /** Which of the month's two assign actions funds this group. */
  action: 1 | 2;
  categories: CategoryPlan[];
}

export type PayWith = 'card' | 'checking' | 'cash' | 'mixed';

export interface SplitPart {
  category: string;
  min: number;
  max: number;
}

export interface Merchant {
  name: string;
  /** Category key; 'income' for inflows to Ready to Assign. */
  category: string;
  /** Amount range in whole units. */
  min: number;
  max: number;
  /** How often it appears, relative to the others. */
  weight: number;
  pay: PayWith;
  /** Other categories a receipt may be split into (2-4 lines in all). */
  split?: SplitPart[];
  splitChance?: number;
  memos?: string[];
  /** Latitude and longitude, as the API's strings. */
  location?: [string, string];
}

const U = 1000;

/** An amount in whole units, rounded as a person would set a target. */
function nice(units: number): number {
  const step = units < 20 ? 1 : units < 100 ? 5 : units < 1000 ? 10 : 50;
  return Math.max(step, Math.round(units / step) * step);
}

/**
 * A category's target as the household sets it: from its usual spending (`expectedMonthly`,
 * milliunits) when the plan says so, grown by `scale` when it scales, else as written.
 */
export function sizedTarget(plan: CategoryPlan, expectedMonthly: number, scale: number): TargetSpec | undefined {
  const t = plan.target;
  if (!t) return undefined;
  if (plan.habitTarget && expectedMonthly > 0) {
    const perPeriod = t.kind === 'weekly' ? (expectedMonthly * 12) / 52 : expectedMonthly;
    return { ...t, target: nice(perPeriod / U) };
  }
  return plan.scales && scale > 1 ? { ...t, target: nice(t.target * scale) } : t;
}

/** A plan's monthly cap, grown by `scale` with the household. */
export const sizedCap = (plan: CategoryPlan, scale: number) => (plan.cap === undefined ? undefined : nice(plan.cap * Math.max(1, scale)) * U);

/** The GoalRec for a target, created in `creationMonth`; dates relative to `today`. */
export function goalOf(spec: TargetSpec, creationMonth: string, today: string): GoalRec {
  const base: GoalRec = {
    type: 'NEED',
    target: spec.target * U,
    target_date: null,
    needs_whole_amount: null,
    day: null,
    cadence: 1,
    cadence_frequency: 1,
    creation_month: creationMonth,
    snoozed_at: null,
  };
  switch (spec.kind) {
    case 'balance':
      return { ...base, type: 'TB', cadence: 0, cadence_frequency: null };
    case 'byDate':
      return { ...base, type: 'TBD', cadence: 0, cadence_frequency: null, target_date: addMonths(monthOf(today), spec.monthsAhead) };
    case 'monthly':
      return { ...base, type: 'MF' };
    case 'need':
      return { ...base, needs_whole_amount: spec.whole, day: spec.day ?? null };
    case 'weekly':
      return { ...base, needs_whole_amount: true, cadence: 2, day: spec.weekday };
    case 'yearly': {
      // The next due date on or after today: what the app shows for a repeating yearly target.
      let due = `${today.slice(0, 4)}-${spec.due}`;
      if (due < today) due = `${Number(today.slice(0, 4)) + 1}-${spec.due}`;
      return { ...base, needs_whole_amount: true, cadence: 13, day: Number(spec.due.slice(3)), target_date: due };
    }
    case 'debt':
      return { ...base, type: 'DEBT', day: spec.day };
  }
}
