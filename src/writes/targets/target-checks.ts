/**
 * The target writes (update_category, create_category with goal_* fields) checked against the
 * budget's copy before any request, with the rules YNAB's API states for SaveCategory:
 *  - goal_frequency needs goal_target and no goal_target_date, and is not for a credit card
 *    payment category (1.86);
 *  - goal_needs_whole_amount applies to NEED targets only (1.86);
 *  - a category paired to a loan account has a DEBT target (one set there without a type is DEBT)
 *    and takes no goal_target_date, goal_frequency or goal_needs_whole_amount (1.87). The API does
 *    not say which account a category is paired to; a DEBT target is the sign of one (YNAB gives
 *    DEBT targets to loan categories only), so a loan category without a target yet is left to
 *    YNAB's own refusal.
 * Sources: test/fixtures/ynab-api/README.md ("Rules beyond the spec").
 */
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';

interface SaveCategory {
  goal_target?: number | null;
  goal_target_date?: string | null;
  goal_needs_whole_amount?: boolean | null;
  goal_frequency?: string;
}

/** A card's payment category: in YNAB's internal group of them, named as an open or closed card account. */
const isPayment = (r: BudgetReplica, c: E.CategoryBase) =>
  !!r.categoryGroups.get(c.category_group_id)?.internal &&
  [...r.accounts.values()].some((a) => a.name === c.name && (a.type === 'creditCard' || a.type === 'lineOfCredit'));

/** Refuses (nothing sent) a target write YNAB would refuse; `c` is the category updated (none for a create). */
export function checkTargetWrite(r: BudgetReplica, input: SaveCategory | undefined, c?: E.CategoryBase): void {
  if (!input) return;
  const name = c ? `"${c.name}"` : 'a new category';
  if (c?.goal_type === 'DEBT') {
    const field = input.goal_target_date
      ? 'goal_target_date'
      : input.goal_frequency !== undefined
        ? 'goal_frequency'
        : input.goal_needs_whole_amount != null
          ? 'goal_needs_whole_amount'
          : null;
    if (field)
      throw new ArgumentError(
        `${field} is not supported for ${name}: its target is DEBT, a category paired to a loan account (YNAB API 1.87). Send goal_target alone to change the monthly payment. Nothing was sent`,
      );
  }
  if (input.goal_frequency !== undefined) {
    if (input.goal_target === undefined || input.goal_target === null)
      throw new ArgumentError('goal_frequency needs goal_target (the amount each period). Nothing was sent');
    if (input.goal_target_date)
      throw new ArgumentError('goal_frequency and goal_target_date cannot be sent together: a repeating target has no end date. Nothing was sent');
    if (c && isPayment(r, c)) throw new ArgumentError(`goal_frequency is not supported for ${name}, a credit card payment category. Nothing was sent`);
  }
  if (c && input.goal_needs_whole_amount != null && input.goal_frequency === undefined) {
    // A target set where there was none is NEED (MF on a card payment category).
    const type = c.goal_type ?? (input.goal_target != null ? (isPayment(r, c) ? 'MF' : 'NEED') : null);
    if (type !== 'NEED')
      throw new ArgumentError(`goal_needs_whole_amount applies only to NEED targets; ${name}'s target is ${type ?? 'not set'}. Nothing was sent`);
  }
}
