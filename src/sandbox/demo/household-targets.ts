/**
 * Targets the demo household set this month, late, so that they are still underfunded today
 * (issue 35: targets_summary and fund_targets need some to find): the cadences the API describes
 * beyond monthly, weekly and yearly, on categories that had none.
 *  - Clothing: NEED refill, monthly (what tops it up to the target);
 *  - Hobbies: NEED set aside every 3 months (goal_cadence 4), due two months from now;
 *  - Education: MF every other month (goal_cadence 1, goal_cadence_frequency 2).
 * Nothing is assigned for them this month, so each asks for money now.
 */
import { addMonths, monthOf } from '../../api/dates.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { CategoryRec, GoalRec } from '../store/records.js';

const U = 1000;

export function addHouseholdTargets(store: BudgetStore, cat: Record<string, CategoryRec>, today: string): void {
  const month = monthOf(today);
  const goal = (g: Partial<GoalRec> & Pick<GoalRec, 'type' | 'target'>): GoalRec => ({
    target_date: null,
    needs_whole_amount: null,
    day: null,
    cadence: 1,
    cadence_frequency: 1,
    creation_month: month,
    snoozed_at: null,
    ...g,
  });
  const set = (key: string, g: GoalRec) => {
    const c = cat[key];
    if (c && !c.goal) store.stamp(c).goal = g;
  };
  set('clothing', goal({ type: 'NEED', target: 400 * U, needs_whole_amount: false }));
  set(
    'hobbies',
    goal({ type: 'NEED', target: 300 * U, needs_whole_amount: true, cadence: 4, cadence_frequency: null, target_date: `${addMonths(month, 2).slice(0, 8)}15` }),
  );
  set('education', goal({ type: 'MF', target: 60 * U, cadence: 1, cadence_frequency: 2 }));
}
