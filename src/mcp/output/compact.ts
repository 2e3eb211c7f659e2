/**
 * The compact form of each kind of entity: the fields an assistant needs to answer budget
 * questions, money as milliunits plus the budget's formatted text (never the float
 * `_currency` companions), and names next to the ids they stand for.
 */
import { debtTermsOn, ratePercent, type Periodic } from '../../api/debt-terms.js';
import { formatMilliunits } from '../../api/money.js';
import type { OutputKind } from '../../api/operations/index.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';

/** The answer's names for a category's API fields. */
const CATEGORY_NAMES = { budgeted: 'assigned', balance: 'available' };
/** The answer's names for a month's API fields. */
const MONTH_NAMES = { budgeted: 'assigned', to_be_budgeted: 'ready_to_assign' };

/**
 * Plain fields, then money fields (each shown as milliunits and formatted), and the answer's name
 * for an API field where the vocabulary (./vocabulary.ts) names it otherwise: a category's month
 * figures are what YNAB's app shows, assigned and available (the API's budgeted and balance).
 */
const COMPACT: Record<OutputKind, { plain: string[]; money?: string[]; rename?: Record<string, string> }> = {
  user: { plain: ['id'] },
  budget_summary: { plain: ['id', 'name', 'first_month', 'last_month', 'last_modified_on', 'currency'] },
  budget_detail: { plain: ['id', 'name', 'first_month', 'last_month', 'last_modified_on', 'currency', 'counts'] },
  settings: { plain: ['date_format', 'currency_format'] },
  // `debt`: a loan's interest rate, minimum payment and escrow as people read them (debtTerms).
  account: {
    plain: ['id', 'name', 'type', 'on_budget', 'closed', 'note', 'transfer_payee_id', 'debt'],
    money: ['balance', 'cleared_balance', 'uncleared_balance'],
  },
  category_group: { plain: ['id', 'name', 'hidden', 'internal'] },
  category: {
    plain: [
      'id',
      'name',
      'category_group_id',
      'category_group_name',
      'hidden',
      'note',
      'goal_type',
      'goal_target_date',
      'goal_percentage_complete',
      'goal_months_to_budget',
    ],
    money: ['budgeted', 'activity', 'balance', 'goal_target', 'goal_under_funded'],
    rename: CATEGORY_NAMES,
  },
  // A category as a row of a list (a month's, a group's): its figures, and what its target still needs.
  category_row: { plain: ['id', 'name', 'hidden'], money: ['budgeted', 'activity', 'balance', 'goal_under_funded'], rename: CATEGORY_NAMES },
  payee: { plain: ['id', 'name', 'transfer_account_id'] },
  payee_location: { plain: ['id', 'payee_id', 'payee_name', 'latitude', 'longitude'] },
  month_summary: { plain: ['month', 'note', 'age_of_money'], money: ['income', 'budgeted', 'activity', 'to_be_budgeted'], rename: MONTH_NAMES },
  month_detail: { plain: ['month', 'note', 'age_of_money'], money: ['income', 'budgeted', 'activity', 'to_be_budgeted'], rename: MONTH_NAMES },
  money_movement: {
    plain: ['id', 'month', 'moved_at', 'from_category_id', 'from_category_name', 'to_category_id', 'to_category_name', 'note', 'money_movement_group_id'],
    money: ['amount'],
  },
  money_movement_group: { plain: ['id', 'month', 'group_created_at', 'note'] },
  transaction: {
    plain: [
      'id',
      'date',
      'payee_name',
      'category_name',
      'account_name',
      'memo',
      'cleared',
      'approved',
      'flag_color',
      'transfer_account_id',
      'import_id',
      'payee_id',
      'category_id',
      'account_id',
    ],
    money: ['amount'],
  },
  hybrid_transaction: {
    plain: [
      'id',
      'type',
      'parent_transaction_id',
      'date',
      'payee_name',
      'category_name',
      'account_name',
      'memo',
      'cleared',
      'approved',
      'flag_color',
      'transfer_account_id',
      'payee_id',
      'category_id',
      'account_id',
    ],
    money: ['amount'],
  },
  scheduled_transaction: {
    plain: [
      'id',
      'date_next',
      'date_first',
      'frequency',
      'payee_name',
      'category_name',
      'account_name',
      'memo',
      'flag_color',
      'transfer_account_id',
      'payee_id',
      'category_id',
      'account_id',
    ],
    money: ['amount'],
  },
};

/** Kinds shown as lean rows inside lists when no `fields` are asked for. */
export const ROW_KIND: Partial<Record<OutputKind, OutputKind>> = { category: 'category_row' };

/** Fields kept whatever `fields` asks for: what identifies the entity. */
export const IDENTITY_FIELDS = ['id', 'name', 'month'];

/** Names for ids the API leaves bare (money movements, payee locations). */
export interface Names {
  category(id: string | null | undefined): string | null;
  payee(id: string | null | undefined): string | null;
}

export interface CompactContext {
  format: CurrencyFormat | null;
  names?: Names;
  /** Money fields (API names) non-zero on some row of the answer: a lean row keeps them at zero too. */
  keepZero?: ReadonlySet<string>;
}

/** An entity (or any JSON object) of an answer, as opposed to a value or a list. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The entities of a list, leaving out deleted ones. */
export function live(list: readonly unknown[]): Record<string, unknown>[] {
  // One pass, one array: a list_transactions call runs this over a year's rows.
  const out: Record<string, unknown>[] = [];
  for (const x of list) if (isRecord(x) && !x.deleted) out.push(x);
  return out;
}

/** An id field's value, when it holds one. */
const idIn = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * The API's `key` as the answer's `name` (the same unless renamed), with its formatted companion;
 * neither when it has no value (compact answers leave such fields out).
 */
export function moneyPair(e: Record<string, unknown>, key: string, ctx: CompactContext, out: Record<string, unknown>, name = key) {
  const value = e[key];
  if (value === undefined || value === null) return;
  out[name] = value;
  // Amounts are milliunits (integers) in every answer the schemas let through.
  out[`${name}_formatted`] = e[`${key}_formatted`] ?? formatMilliunits(Number(value), ctx.format);
}

/** The answer's name of an API field of this kind. */
const nameOf = (kind: OutputKind, key: string): string => COMPACT[kind].rename?.[key] ?? key;

/**
 * What `fields` accepts for this kind, as its description says it (issue 58 item 9): the compact
 * names, and YNAB's names that are called otherwise here (budgeted is assigned, ...).
 */
export function fieldsDoc(kind: OutputKind): string {
  const c = COMPACT[kind];
  // id and name are always kept (the instructions say so); a figure's twin is its name with _formatted.
  const names = [...c.plain, ...(c.money ?? []).map((m) => nameOf(kind, m)), ...nestedMembers(kind)].filter((n) => n !== 'id' && n !== 'name');
  const renamed = Object.entries(c.rename ?? {}).map(([api, ours]) => `${api} is ${ours}`);
  return `${names.join(', ')}${renamed.length ? `; YNAB's ${renamed.join(', ')}` : ''}`;
}

/** YNAB's names of this kind's fields that are called otherwise here, to ours. */
export function renamedFields(kind: OutputKind): Record<string, string> {
  return { ...(COMPACT[kind].rename ?? {}) };
}

/** Every field a compact entity of this kind can have (for `fields` validation). */
export function compactFieldNames(kind: OutputKind): string[] {
  const c = COMPACT[kind];
  const money = (c.money ?? []).map((m) => nameOf(kind, m));
  return [...c.plain, ...money.flatMap((m) => [m, `${m}_formatted`]), ...nestedMembers(kind)];
}

function nestedMembers(kind: OutputKind): string[] {
  if (kind === 'category_group' || kind === 'month_detail') return ['categories'];
  if (kind === 'transaction' || kind === 'scheduled_transaction') return ['subtransactions'];
  if (kind === 'budget_detail' || kind === 'budget_summary') return ['accounts'];
  return [];
}

export function compact(kind: OutputKind, e: Record<string, unknown>, ctx: CompactContext): Record<string, unknown> {
  const spec = COMPACT[kind];
  const out: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  if (kind === 'budget_summary' || kind === 'budget_detail') extra.currency = (isRecord(e.currency_format) ? e.currency_format.iso_code : null) ?? null;
  if (kind === 'money_movement') {
    const from = idIn(e.from_category_id);
    const to = idIn(e.to_category_id);
    extra.from_category_name = from ? (ctx.names?.category(from) ?? null) : 'Ready to Assign';
    extra.to_category_name = to ? (ctx.names?.category(to) ?? null) : 'Ready to Assign';
  }
  if (kind === 'account') extra.debt = debtTerms(e, ctx);
  if (kind === 'payee_location') extra.payee_name = ctx.names?.payee(idIn(e.payee_id)) ?? null;
  if (kind === 'budget_detail') {
    const count = (k: string) => (Array.isArray(e[k]) ? e[k].length : 0);
    extra.counts = {
      accounts: count('accounts'),
      category_groups: count('category_groups'),
      categories: count('categories'),
      payees: count('payees'),
      months: count('months'),
      transactions: count('transactions'),
      scheduled_transactions: count('scheduled_transactions'),
    };
  }
  // Rows and groups say only what is not the usual: hidden, internal, a figure that is not zero
  // (a month's list reads in a few kilobytes with every figure formatted), unless the figure is
  // not zero on another row of the answer (keepZero): a missing field there reads as unknown.
  const lean = kind === 'category_row' || kind === 'category_group';
  for (const key of spec.plain) {
    const value = key in extra ? extra[key] : e[key];
    if (lean && (key === 'hidden' || key === 'internal') && !value) continue;
    put(out, key, value);
  }
  for (const key of spec.money ?? []) if (!(lean && e[key] === 0 && !ctx.keepZero?.has(key))) moneyPair(e, key, ctx, out, nameOf(kind, key));
  // A deleted entity (the answer of a delete) says so.
  if (e.deleted === true) out.deleted = true;
  // Nested collections in their own compact form; a group's categories need not repeat its name.
  if ((kind === 'category_group' || kind === 'month_detail') && Array.isArray(e.categories)) {
    out.categories = live(e.categories).map((c) => compact('category_row', c, ctx));
  }
  if ((kind === 'transaction' || kind === 'scheduled_transaction') && Array.isArray(e.subtransactions) && e.subtransactions.length) {
    out.subtransactions = e.subtransactions.filter(isRecord).map((x) => {
      const line: Record<string, unknown> = {};
      for (const k of ['id', 'payee_name', 'category_name', 'memo', 'transfer_account_id', 'category_id', 'payee_id']) put(line, k, x[k]);
      moneyPair(x, 'amount', ctx, line);
      return line;
    });
  }
  if ((kind === 'budget_detail' || kind === 'budget_summary') && Array.isArray(e.accounts)) {
    out.accounts = live(e.accounts).map((a) => compact('account', a, ctx));
  }
  return out;
}

/**
 * A debt account's terms in effect today: the rate as a percentage (YNAB sends 4500 for 4.5%), the
 * minimum payment and escrow as money. Null for an account without them.
 */
export function debtTerms(e: Record<string, unknown>, ctx: CompactContext): Record<string, unknown> | null {
  const terms = debtTermsOn(e as Record<string, Periodic>, new Date().toISOString().slice(0, 10));
  if (!terms) return null;
  const out: Record<string, unknown> = {};
  if (terms.rate !== null) out.interest_rate = ratePercent(terms.rate);
  if (terms.minimum !== null) moneyPair({ minimum_payment: terms.minimum }, 'minimum_payment', ctx, out);
  if (terms.escrow !== null) moneyPair({ escrow_amount: terms.escrow }, 'escrow_amount', ctx, out);
  return out;
}

/**
 * Compact answers leave out fields without a value: they cost tokens and say nothing. Such a field
 * is never set, rather than deleted afterwards: an object that loses a property turns slow to read
 * (V8 keeps its properties in a dictionary from then on) for every pass after it, the sanitizer's
 * and JSON's, and the deletes themselves took a tenth of building an answer (2026-11-25).
 */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== null && value !== undefined) out[key] = value;
}

/** Keeps only the requested fields (plus what identifies the entity). */
export function project(entity: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const keep = new Set([...IDENTITY_FIELDS, ...fields]);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entity)) if (keep.has(k)) out[k] = v;
  return out;
}
