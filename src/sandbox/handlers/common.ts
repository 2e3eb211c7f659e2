/**
 * Lookups and parameter rules shared by the handlers: 404s for unknown ids, months, and the
 * delta rule (full answers omit deleted entities; delta answers hold everything changed since).
 */
import { addMonths, isMonthStart } from '../../api/dates.js';
import { Uuid } from '../../api/schemas/common.js';
import { badRequest, resourceNotFound } from '../errors.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { MonthFigures } from '../store/derived.js';
import type { AccountRec, CategoryRec, PayeeRec, TransactionRec } from '../store/records.js';
import type { RequestContext } from './context.js';

/** How far ahead money may be assigned. */
export const MONTHS_AHEAD_LIMIT = 12;

export function sinceKnowledge(ctx: RequestContext): number | undefined {
  return ctx.query.last_knowledge_of_server as number | undefined;
}

/** Whether an entity belongs in the answer: live ones in full answers, changed ones (tombstones too) in deltas. */
export function visible(knowledge: number, deleted: boolean, since: number | undefined): boolean {
  return since === undefined ? !deleted : knowledge > since;
}

function checkId(kind: string, id: string): void {
  if (!Uuid.safeParse(id).success) throw badRequest(`${kind} must be formatted as a uuid (universally unique identifier), got ${JSON.stringify(id)}`);
}

export function requireAccount(b: BudgetStore, id: string): AccountRec {
  checkId('account_id', id);
  const a = b.account(id);
  if (!a) throw resourceNotFound(`account ${id} was not found in this budget`);
  return a;
}

export function requireCategory(b: BudgetStore, id: string): CategoryRec {
  checkId('category_id', id);
  const c = b.category(id);
  if (!c) throw resourceNotFound(`category ${id} was not found in this budget`);
  return c;
}

export function requirePayee(b: BudgetStore, id: string): PayeeRec {
  checkId('payee_id', id);
  const p = b.payee(id);
  if (!p) throw resourceNotFound(`payee ${id} was not found in this budget`);
  return p;
}

export function requireTransaction(b: BudgetStore, id: string): TransactionRec {
  const t = b.transaction(id);
  if (!t) throw resourceNotFound(`transaction ${JSON.stringify(id)} was not found in this budget`);
  return t;
}

/** Parses a `{month}` path parameter: `current` or the first day of a month (YYYY-MM-01). */
export function parseMonthParam(b: BudgetStore, raw: string): string {
  if (raw === 'current') return b.derived().currentMonth;
  if (!isMonthStart(raw)) throw badRequest(`month must be "current" or the first day of a month as YYYY-MM-01, got ${JSON.stringify(raw)}`);
  return raw;
}

/** A month of the budget that exists (between its first and last month). */
export function requireMonth(b: BudgetStore, raw: string): MonthFigures {
  const month = parseMonthParam(b, raw);
  const m = b.derived().monthIndex.get(month);
  if (!m) {
    const d = b.derived();
    throw resourceNotFound(`month ${month} is not in this budget (its months run from ${d.firstMonth} to ${d.lastMonth})`);
  }
  return m;
}

/** A month money may be assigned in: an existing month, or one up to a year ahead. */
export function assignableMonth(b: BudgetStore, raw: string): string {
  const month = parseMonthParam(b, raw);
  const d = b.derived();
  const limit = addMonths(d.currentMonth, MONTHS_AHEAD_LIMIT);
  if (month < d.firstMonth) throw resourceNotFound(`month ${month} is before this budget's first month ${d.firstMonth}`);
  if (month > limit) throw badRequest(`month ${month} is too far ahead: money can be assigned up to ${limit}`);
  return month;
}
