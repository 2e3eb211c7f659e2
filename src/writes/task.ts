/**
 * What the task-shaped writes (src/mcp/tools/tasks.ts) share: the context a plan is made in (the
 * budget's copy read nearly now, names and money for people, the service to write through, the
 * undo journal), the plan a task makes (a Plan plus how to apply it), and small helpers.
 */
import type * as E from '../api/schemas/entities.js';
import type { BudgetView } from '../insights/view.js';
import { ArgumentError } from '../shared/argument-error.js';
import { requiredMoney } from '../shared/money-args.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { YnabService } from '../sync/service.js';
import type { UndoJournal } from './undo-journal.js';
import type { Shown, State } from './entities.js';
import type { Draft, Plan } from './plan.js';
import type { Writer } from './steps.js';

export interface TaskContext {
  /** The undo journal. */
  changes: UndoJournal;
  service: YnabService;
  budgetId: string;
  replica: BudgetReplica;
  view: BudgetView;
  shown: Shown;
  digits?: number;
  today: string;
  tool: string;
}

export interface Applied {
  structured: Record<string, unknown>;
  draft?: Draft;
  notices?: string[];
}

export interface TaskPlan extends Plan {
  /** Answered as is, nothing written (duplicates held, nothing to change). */
  answer?: Record<string, unknown>;
  apply(w: Writer): Promise<Applied>;
}

/** A transaction as a short row of a result. */
export function txnRow(s: Shown, id: string, t: State): Record<string, unknown> {
  const lines = (t.subtransactions as State[] | undefined) ?? [];
  return {
    id,
    date: t.date,
    amount_milliunits: t.amount,
    amount_formatted: s.money(t.amount as number),
    account_name: s.account(t.account_id),
    payee_name: s.payee(t.payee_id) ?? t.payee_name ?? null,
    category_name: lines.length ? `Split (${lines.length})` : s.category(t.category_id),
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
  };
}

export function positive(args: Record<string, unknown>, digits: number | undefined): number {
  const m = requiredMoney(args, 'amount', { digits });
  if (m <= 0) throw new ArgumentError(`amount must be above zero (the direction is given by from and to), got ${m / 1000}`);
  return m;
}

/**
 * The account an argument names. A closed one is taken, as YNAB takes it (the plan's notices say
 * it is closed: ./checks.ts).
 */
export function accountOf(r: BudgetReplica, id: string, label: string): E.AccountBase {
  const a = r.accounts.get(id);
  if (!a || a.deleted) throw new ArgumentError(`${label} ${id}: no such account in this budget`);
  return a;
}
