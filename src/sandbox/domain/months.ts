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

function setBudgeted(rec: MonthRec, categoryId: string, budgeted: number): void {
  if (budgeted === 0) delete rec.budgeted[categoryId];
  else rec.budgeted[categoryId] = budgeted;
}

/**
 * Records one action's money movements, as one group: `null` on either side is Ready to Assign.
 * Must run inside `b.change()`.
 */
function recordMovements(
  b: BudgetStore,
  month: string,
  movedAt: string,
  note: string | null,
  moves: { from: string | null; to: string | null; amount: number }[],
): void {
  const knowledge = b.writing;
  const groupId = b.env.newId();
  b.rec.money_movement_groups.push({ id: groupId, group_created_at: movedAt, month, note, performed_by_user_id: b.env.userId, knowledge });
  for (const m of moves) {
    b.rec.money_movements.push({
      id: b.env.newId(),
      month,
      moved_at: movedAt,
      note,
      money_movement_group_id: groupId,
      performed_by_user_id: b.env.userId,
      from_category_id: m.from,
      to_category_id: m.to,
      amount: m.amount,
      knowledge,
    });
  }
}

/**
 * Sets what is assigned to categories in a month, as one action. Must run inside `b.change()`.
 * `movedAt` is when the user did it (a timestamp); demo history passes past times.
 */
export function assign(b: BudgetStore, month: string, amounts: { categoryId: string; budgeted: number }[], movedAt: string, note: string | null = null): void {
  const rec = monthRecord(b, month);
  const changes = amounts
    .map(({ categoryId, budgeted }) => ({ categoryId, budgeted, delta: budgeted - (rec.budgeted[categoryId] ?? 0) }))
    .filter((m) => m.delta !== 0);
  if (!changes.length) return;
  for (const m of changes) setBudgeted(rec, m.categoryId, m.budgeted);
  recordMovements(
    b,
    month,
    movedAt,
    note,
    changes.map((m) => ({ from: m.delta > 0 ? null : m.categoryId, to: m.delta > 0 ? m.categoryId : null, amount: Math.abs(m.delta) })),
  );
}

/**
 * Moves money from one category to another in a month, as one action (YNAB's "move money", e.g.
 * to cover overspending): the first's assigned amount goes down, the second's up, and one money
 * movement records it. Must run inside `b.change()`.
 */
export function moveMoney(b: BudgetStore, month: string, fromId: string, toId: string, amount: number, movedAt: string, note: string | null = null): void {
  if (amount <= 0 || fromId === toId) return;
  const rec = monthRecord(b, month);
  setBudgeted(rec, fromId, (rec.budgeted[fromId] ?? 0) - amount);
  setBudgeted(rec, toId, (rec.budgeted[toId] ?? 0) + amount);
  recordMovements(b, month, movedAt, note, [{ from: fromId, to: toId, amount }]);
}
