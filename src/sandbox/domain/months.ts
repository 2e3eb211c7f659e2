/**
 * Assigning money: a category's budgeted amount in a month. Each change is also recorded as a
 * money movement (from Ready to Assign to the category, or back), grouped per action.
 */
import type { BudgetStore } from '../store/budget-store.js';
import type { MonthRec } from '../store/records.js';

export function monthRecord(b: BudgetStore, month: string): MonthRec {
  let rec = b.rec.months.get(month);
  if (!rec) {
    rec = { month, note: null, budgeted: {} };
    b.rec.months.set(month, rec);
  }
  return rec;
}

/**
 * Sets what is assigned to categories in a month, as one action. Must run inside `b.change()`.
 * `movedAt` is when the user did it (a timestamp); demo history passes past times.
 */
export function assign(b: BudgetStore, month: string, amounts: { categoryId: string; budgeted: number }[], movedAt: string, note: string | null = null): void {
  const rec = monthRecord(b, month);
  const knowledge = b.writing;
  const moves = amounts
    .map(({ categoryId, budgeted }) => ({ categoryId, budgeted, delta: budgeted - (rec.budgeted[categoryId] ?? 0) }))
    .filter((m) => m.delta !== 0);
  if (!moves.length) return;
  const groupId = b.env.newId();
  b.rec.money_movement_groups.push({ id: groupId, group_created_at: movedAt, month, note, performed_by_user_id: b.env.userId, knowledge });
  for (const m of moves) {
    if (m.budgeted === 0) delete rec.budgeted[m.categoryId];
    else rec.budgeted[m.categoryId] = m.budgeted;
    b.rec.money_movements.push({
      id: b.env.newId(),
      month,
      moved_at: movedAt,
      note,
      money_movement_group_id: groupId,
      performed_by_user_id: b.env.userId,
      from_category_id: m.delta > 0 ? null : m.categoryId,
      to_category_id: m.delta > 0 ? m.categoryId : null,
      amount: Math.abs(m.delta),
      knowledge,
    });
  }
}

/**
 * Moves money from one category to another in a month, as one action (YNAB's "move money", e.g.
 * to cover overspending): the first's assigned amount goes down, the second's up, and one money
 * movement records it. Must run inside `b.change()`.
 */
export function moveMoney(b: BudgetStore, month: string, fromId: string, toId: string, amount: number, movedAt: string, note: string | null = null): void {
  if (amount <= 0 || fromId === toId) return;
  const rec = monthRecord(b, month);
  const knowledge = b.writing;
  const groupId = b.env.newId();
  b.rec.money_movement_groups.push({ id: groupId, group_created_at: movedAt, month, note, performed_by_user_id: b.env.userId, knowledge });
  for (const [id, delta] of [[fromId, -amount], [toId, amount]] as const) {
    const budgeted = (rec.budgeted[id] ?? 0) + delta;
    if (budgeted === 0) delete rec.budgeted[id];
    else rec.budgeted[id] = budgeted;
  }
  b.rec.money_movements.push({
    id: b.env.newId(),
    month,
    moved_at: movedAt,
    note,
    money_movement_group_id: groupId,
    performed_by_user_id: b.env.userId,
    from_category_id: fromId,
    to_category_id: toId,
    amount,
    knowledge,
  });
}
