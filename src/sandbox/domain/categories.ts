/**
 * Category groups and categories, including the groups and categories the service keeps for
 * itself: "Internal Master Category" (Inflow: Ready to Assign, Uncategorized), "Credit Card
 * Payments" (one payment category per card) and "Hidden Categories".
 */
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, CategoryGroupRec, CategoryRec, CategoryRole, GoalRec, GroupRole } from '../store/records.js';

/** A target as YNAB starts one in `month`: monthly, no date, not snoozed; `g` says what differs. */
export function goalRec(month: string, g: Partial<GoalRec> & Pick<GoalRec, 'type' | 'target'>): GoalRec {
  return {
    target_date: null,
    needs_whole_amount: null,
    day: null,
    cadence: 1,
    cadence_frequency: 1,
    creation_month: month,
    snoozed_at: null,
    ...g,
  };
}

export function createGroup(b: BudgetStore, name: string, opts: { hidden?: boolean; internal?: boolean; role?: GroupRole } = {}): CategoryGroupRec {
  const group = b.stamp<CategoryGroupRec>({
    id: b.env.newId(),
    name,
    hidden: opts.hidden ?? false,
    internal: opts.internal ?? false,
    role: opts.role ?? null,
    deleted: false,
    knowledge: 0,
  });
  b.rec.category_groups.set(group.id, group);
  return group;
}

export function createCategory(
  b: BudgetStore,
  groupId: string,
  name: string,
  opts: { hidden?: boolean; note?: string | null; goal?: GoalRec | null; role?: CategoryRole; linkedAccountId?: string; internal?: boolean } = {},
): CategoryRec {
  const category = b.stamp<CategoryRec>({
    id: b.env.newId(),
    category_group_id: groupId,
    name,
    hidden: opts.hidden ?? false,
    internal: opts.internal ?? false,
    note: opts.note ?? null,
    goal: opts.goal ?? null,
    role: opts.role ?? null,
    linked_account_id: opts.linkedAccountId ?? null,
    deleted: false,
    knowledge: 0,
  });
  b.rec.categories.set(category.id, category);
  return category;
}

function groupByRole(b: BudgetStore, role: GroupRole): CategoryGroupRec | undefined {
  for (const g of b.rec.category_groups.values()) if (g.role === role && !g.deleted) return g;
  return undefined;
}

/** The groups and categories every budget has from the start. */
export function createInternalCategories(b: BudgetStore): void {
  const master = createGroup(b, 'Internal Master Category', { internal: true, role: 'internal_master' });
  createCategory(b, master.id, 'Inflow: Ready to Assign', { internal: true, role: 'ready_to_assign' });
  createCategory(b, master.id, 'Uncategorized', { internal: true, role: 'uncategorized' });
  createGroup(b, 'Credit Card Payments', { internal: true, role: 'credit_card_payments' });
  createGroup(b, 'Hidden Categories', { internal: true, hidden: true, role: 'hidden_categories' });
}

/** A card's payment category, in the Credit Card Payments group. */
export function createPaymentCategory(b: BudgetStore, accountId: string, accountName: string): CategoryRec {
  const group = groupByRole(b, 'credit_card_payments') ?? createGroup(b, 'Credit Card Payments', { internal: true, role: 'credit_card_payments' });
  return createCategory(b, group.id, accountName, { role: 'credit_card_payment', linkedAccountId: accountId });
}

/** Account types YNAB counts as loans (API 1.87: a category paired to one has a DEBT target). */
export const LOAN_TYPES: ReadonlySet<string> = new Set(['mortgage', 'autoLoan', 'studentLoan', 'personalLoan', 'medicalDebt', 'otherDebt']);

/** The loan account a category is paired to (its payments), if any. */
export function pairedLoan(b: BudgetStore, c: Pick<CategoryRec, 'linked_account_id'>): AccountRec | undefined {
  const a = c.linked_account_id ? b.account(c.linked_account_id) : undefined;
  return a && LOAN_TYPES.has(a.type) ? a : undefined;
}

/** Whether the user may put categories in this group (internal groups are the service's own). */
export function isUserGroup(g: CategoryGroupRec): boolean {
  return !g.internal;
}
