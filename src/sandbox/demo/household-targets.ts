/**
 * Targets the demo household set up this month, in a group of their own, so that they are still
 * underfunded today (issue 35: targets_summary and fund_targets need some to find), with the
 * cadences the API describes beyond monthly, weekly and yearly:
 *  - Dentist: NEED set aside every 6 months (goal_cadence 7), due in two months;
 *  - Camping Gear: NEED refill, monthly (what tops it up to the target);
 *  - Piano Lessons: MF every other month (goal_cadence 1, goal_cadence_frequency 2).
 * Nothing is assigned to them yet, so each asks for money now.
 */
import { addMonths, monthOf } from '../../api/dates.js';
import { createCategory, createGroup, goalRec } from '../domain/categories.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { GoalRec } from '../store/records.js';

const U = 1000;

export function addHouseholdTargets(store: BudgetStore, today: string): void {
  const month = monthOf(today);
  const goal = (g: Partial<GoalRec> & Pick<GoalRec, 'type' | 'target'>) => goalRec(month, g);
  const group = createGroup(store, 'Plans Ahead');
  const due = `${addMonths(month, 2).slice(0, 8)}15`;
  createCategory(store, group.id, 'Dentist', {
    goal: goal({ type: 'NEED', target: 240 * U, needs_whole_amount: true, cadence: 7, cadence_frequency: null, target_date: due, day: 15 }),
  });
  createCategory(store, group.id, 'Camping Gear', { goal: goal({ type: 'NEED', target: 150 * U, needs_whole_amount: false }) });
  createCategory(store, group.id, 'Piano Lessons', { goal: goal({ type: 'MF', target: 90 * U, cadence_frequency: 2 }) });
}
