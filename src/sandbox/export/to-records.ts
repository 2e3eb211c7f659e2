/**
 * A checked budget export as the sandbox's records: every id, name, date, cleared and approved
 * state, flag, memo, import id, split line, transfer, scheduled transaction, target, note and the
 * currency format kept as the export has them. What the sandbox stores only as facts (assigned
 * amounts per month) is taken from the months; the figures YNAB computed are compared and kept
 * apart (export-figures.ts). The roles of YNAB's own groups and categories come from their names,
 * as the export does not mark them.
 */
import { randomUUID } from 'node:crypto';
import { monthOf } from '../../api/dates.js';
import type { CurrencyFormat, DateFormat } from '../../api/schemas/common.js';
import { emptyBudget } from '../store/records.js';
import type * as R from '../store/records.js';
import type { CheckedExport } from './check-export.js';
import type { Json } from './read-export.js';

const GROUP_ROLES: Record<string, R.GroupRole> = {
  'Internal Master Category': 'internal_master',
  'Credit Card Payments': 'credit_card_payments',
  'Hidden Categories': 'hidden_categories',
};
const CREDIT = new Set(['creditCard', 'lineOfCredit']);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** An id field: an empty string (which YNAB never sends, but an edited file may) is no id. */
const id = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const bool = (v: unknown, fallback = false): boolean => (typeof v === 'boolean' ? v : fallback);

interface Ctx {
  knowledge: number;
  notes: string[];
}

function categoryRole(c: Json, group: R.CategoryGroupRec | undefined): R.CategoryRole | null {
  if (group?.role === 'internal_master') {
    if (String(c.name).startsWith('Inflow: Ready to Assign') || c.name === 'Ready to Assign') return 'ready_to_assign';
    if (c.name === 'Uncategorized') return 'uncategorized';
  }
  return group?.role === 'credit_card_payments' ? 'credit_card_payment' : null;
}

function goalOf(c: Json): R.GoalRec | null {
  if (typeof c.goal_type !== 'string') return null;
  return {
    type: c.goal_type as R.GoalRec['type'],
    target: num(c.goal_target) ?? 0,
    target_date: str(c.goal_target_date) ?? str(c.goal_target_month),
    needs_whole_amount: c.goal_type === 'NEED' ? (typeof c.goal_needs_whole_amount === 'boolean' ? c.goal_needs_whole_amount : null) : null,
    day: num(c.goal_day),
    cadence: num(c.goal_cadence),
    cadence_frequency: num(c.goal_cadence_frequency),
    creation_month: str(c.goal_creation_month) ?? '',
    snoozed_at: str(c.goal_snoozed_at),
  };
}

function lineOf(x: Json, ctx: Ctx, where: string): R.SubtransactionRec {
  if (x.payee_id === '') ctx.notes.push(`${where}: payee_id "" read as no payee`);
  return {
    id: String(x.id),
    amount: x.amount as number,
    memo: str(x.memo),
    payee_id: id(x.payee_id),
    category_id: id(x.category_id),
    transfer_account_id: id(x.transfer_account_id),
    transfer_transaction_id: id(x.transfer_transaction_id),
    deleted: bool(x.deleted),
  };
}

/** Split lines by the id of their transaction: a flat list (the export's) or nested in each. */
function linesByParent(lines: Json[], parentField: string): Map<string, Json[]> {
  const by = new Map<string, Json[]>();
  for (const x of lines) {
    const parent = String(x[parentField]);
    by.set(parent, [...(by.get(parent) ?? []), x]);
  }
  return by;
}

function transactions(e: CheckedExport, b: R.BudgetRec, ctx: Ctx): void {
  const lines = linesByParent(e.subtransactions, 'transaction_id');
  const ids = new Set(e.transactions.map((t) => t.id));
  for (const [i, t] of e.transactions.entries()) {
    const where = `transactions[${i}] (id ${String(t.id)})`;
    const own = [...(lines.get(String(t.id)) ?? []), ...((Array.isArray(t.subtransactions) ? t.subtransactions : []) as Json[])];
    if (t.payee_id === '') ctx.notes.push(`${where}: payee_id "" read as no payee`);
    const transferTo = id(t.transfer_transaction_id);
    if (id(t.transfer_account_id) && !transferTo && !t.deleted) ctx.notes.push(`${where}: a transfer whose other side the export does not hold`);
    if (transferTo && !ids.has(transferTo)) ctx.notes.push(`${where}: its transfer's other side ${transferTo} is not in the export`);
    b.transactions.set(String(t.id), {
      id: String(t.id),
      seq: b.next_seq++,
      date: String(t.date),
      amount: t.amount as number,
      memo: str(t.memo),
      cleared: (str(t.cleared) ?? 'uncleared') as R.TransactionRec['cleared'],
      approved: bool(t.approved, true),
      flag_color: (str(t.flag_color) ?? null) as R.TransactionRec['flag_color'],
      flag_name: str(t.flag_name),
      account_id: String(t.account_id),
      payee_id: id(t.payee_id),
      category_id: id(t.category_id),
      transfer_account_id: id(t.transfer_account_id),
      transfer_transaction_id: transferTo,
      matched_transaction_id: id(t.matched_transaction_id),
      import_id: str(t.import_id),
      import_payee_name: str(t.import_payee_name),
      import_payee_name_original: str(t.import_payee_name_original),
      debt_transaction_type: (str(t.debt_transaction_type) ?? null) as R.TransactionRec['debt_transaction_type'],
      subtransactions: own.map((x, j) => lineOf(x, ctx, `${where} line ${j + 1}`)),
      deleted: bool(t.deleted),
      knowledge: ctx.knowledge,
    });
  }
}

function scheduled(e: CheckedExport, b: R.BudgetRec, ctx: Ctx): void {
  const lines = linesByParent(e.scheduled_subtransactions, 'scheduled_transaction_id');
  for (const s of e.scheduled_transactions) {
    const own = [...(lines.get(String(s.id)) ?? []), ...((Array.isArray(s.subtransactions) ? s.subtransactions : []) as Json[])];
    b.scheduled_transactions.set(String(s.id), {
      id: String(s.id),
      date_first: String(s.date_first),
      frequency: String(s.frequency) as R.ScheduledTransactionRec['frequency'],
      amount: s.amount as number,
      memo: str(s.memo),
      flag_color: (str(s.flag_color) ?? null) as R.ScheduledTransactionRec['flag_color'],
      flag_name: str(s.flag_name),
      account_id: String(s.account_id),
      payee_id: id(s.payee_id),
      category_id: id(s.category_id),
      transfer_account_id: id(s.transfer_account_id),
      subtransactions: own.map((x) => ({
        id: String(x.id),
        amount: x.amount as number,
        memo: str(x.memo),
        payee_id: id(x.payee_id),
        category_id: id(x.category_id),
        transfer_account_id: id(x.transfer_account_id),
        deleted: bool(x.deleted),
      })),
      deleted: bool(s.deleted),
      knowledge: ctx.knowledge,
    });
  }
}

function accounts(e: CheckedExport, b: R.BudgetRec, ctx: Ctx): void {
  for (const a of e.accounts) {
    b.accounts.set(String(a.id), {
      id: String(a.id),
      name: String(a.name),
      type: String(a.type) as R.AccountRec['type'],
      on_budget: bool(a.on_budget, true),
      closed: bool(a.closed),
      note: str(a.note),
      transfer_payee_id: String(a.transfer_payee_id ?? ''),
      direct_import_linked: bool(a.direct_import_linked),
      direct_import_in_error: bool(a.direct_import_in_error),
      last_reconciled_at: str(a.last_reconciled_at),
      debt_interest_rates: (a.debt_interest_rates ?? null) as Record<string, number> | null,
      debt_minimum_payments: (a.debt_minimum_payments ?? null) as Record<string, number> | null,
      debt_escrow_amounts: (a.debt_escrow_amounts ?? null) as Record<string, number> | null,
      deleted: bool(a.deleted),
      knowledge: ctx.knowledge,
    });
  }
  for (const p of e.payees) {
    b.payees.set(String(p.id), {
      id: String(p.id),
      name: String(p.name),
      transfer_account_id: id(p.transfer_account_id),
      deleted: bool(p.deleted),
      knowledge: ctx.knowledge,
    });
  }
  for (const l of e.payee_locations) {
    const loc = { id: String(l.id), payee_id: String(l.payee_id), latitude: String(l.latitude), longitude: String(l.longitude) };
    b.payee_locations.set(loc.id, { ...loc, deleted: bool(l.deleted), knowledge: ctx.knowledge });
  }
}

function categories(e: CheckedExport, b: R.BudgetRec, ctx: Ctx): void {
  for (const g of e.category_groups) {
    const role = GROUP_ROLES[String(g.name)] ?? null;
    const internal = typeof g.internal === 'boolean' ? g.internal : role !== null;
    b.category_groups.set(String(g.id), {
      id: String(g.id),
      name: String(g.name),
      hidden: bool(g.hidden),
      internal,
      role,
      deleted: bool(g.deleted),
      knowledge: ctx.knowledge,
    });
  }
  const cards = [...b.accounts.values()].filter((a) => CREDIT.has(a.type));
  for (const c of e.categories) {
    const group = b.category_groups.get(String(c.category_group_id));
    if (!group) ctx.notes.push(`category ${String(c.id)} (${String(c.name)}): its group ${String(c.category_group_id)} is not in the export`);
    const role = categoryRole(c, group);
    b.categories.set(String(c.id), {
      id: String(c.id),
      category_group_id: String(c.category_group_id),
      name: String(c.name),
      hidden: bool(c.hidden),
      internal: typeof c.internal === 'boolean' ? c.internal : role === 'ready_to_assign' || role === 'uncategorized',
      note: str(c.note),
      goal: goalOf(c),
      role,
      linked_account_id: role === 'credit_card_payment' ? (cards.find((a) => a.name === c.name)?.id ?? null) : null,
      deleted: bool(c.deleted),
      knowledge: ctx.knowledge,
    });
  }
}

/** Assigned amounts and notes per month: the facts the sandbox keeps of a month. */
function months(e: CheckedExport, b: R.BudgetRec): void {
  for (const m of e.months) {
    const budgeted: Record<string, number> = {};
    for (const c of (m.categories ?? []) as Json[]) if (typeof c.budgeted === 'number' && c.budgeted !== 0) budgeted[String(c.id)] = c.budgeted;
    b.months.set(String(m.month), { month: String(m.month), note: str(m.note), budgeted });
  }
}

/** The split category: the category a split transaction carries that no category list holds. */
function splitCategory(b: R.BudgetRec): string {
  for (const t of b.transactions.values()) if (t.subtransactions.length && t.category_id && !b.categories.has(t.category_id)) return t.category_id;
  return randomUUID();
}

export function toRecords(e: CheckedExport, knowledge: number, now: Date): { budget: R.BudgetRec; notes: string[] } {
  const ctx: Ctx = { knowledge, notes: [] };
  const first = str(e.first_month) ?? [...e.months.map((m) => String(m.month))].sort()[0] ?? monthOf(now.toISOString().slice(0, 10));
  const b: R.BudgetRec = {
    ...emptyBudget({
      id: e.id,
      name: e.name,
      split_category_id: '',
      first_month: first,
      now: str(e.last_modified_on) ?? now.toISOString(),
      date_format: (e.date_format ?? null) as DateFormat | null,
      currency_format: e.currency_format as CurrencyFormat,
    }),
    knowledge,
  };
  accounts(e, b, ctx);
  categories(e, b, ctx);
  months(e, b);
  transactions(e, b, ctx);
  scheduled(e, b, ctx);
  b.split_category_id = splitCategory(b);
  return { budget: b, notes: ctx.notes };
}
