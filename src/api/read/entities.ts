/**
 * Full entities from their base form: the formatted companions added, names resolved.
 * Every builder picks the spec's fields explicitly, so whatever extra the source carries
 * (the sandbox's bookkeeping, say) never leaks into an answer.
 */
import type * as E from '../schemas/entities.js';
import { formatMilliunits, milliunitsToCurrencyNumber } from '../money.js';
import { money, nullableCurrency, nullableFormatted, nullableMoney } from './companions.js';
import type { BudgetLookup } from './lookup.js';

/** The base fields of an account, in the spec's order, nothing else. */
export function accountBase(a: E.AccountBase): E.AccountBase {
  return {
    id: a.id,
    name: a.name,
    type: a.type,
    on_budget: a.on_budget,
    closed: a.closed,
    note: a.note ?? null,
    balance: a.balance,
    cleared_balance: a.cleared_balance,
    uncleared_balance: a.uncleared_balance,
    transfer_payee_id: a.transfer_payee_id,
    direct_import_linked: a.direct_import_linked ?? false,
    direct_import_in_error: a.direct_import_in_error ?? false,
    last_reconciled_at: a.last_reconciled_at ?? null,
    debt_original_balance: null,
    debt_interest_rates: a.debt_interest_rates ?? null,
    debt_minimum_payments: a.debt_minimum_payments ?? null,
    debt_escrow_amounts: a.debt_escrow_amounts ?? null,
    deleted: a.deleted,
  };
}

export function account(l: BudgetLookup, a: E.AccountBase): E.Account {
  const base = accountBase(a);
  return { ...base, ...money(l.currencyFormat, base, 'balance', 'cleared_balance', 'uncleared_balance') };
}

/** The base fields of a category, in the spec's order, nothing else. */
export function categoryBase(c: E.CategoryBase): E.CategoryBase {
  return {
    id: c.id,
    category_group_id: c.category_group_id,
    category_group_name: c.category_group_name ?? '',
    name: c.name,
    hidden: c.hidden,
    internal: c.internal,
    original_category_group_id: c.original_category_group_id ?? null,
    note: c.note ?? null,
    budgeted: c.budgeted,
    activity: c.activity,
    balance: c.balance,
    goal_type: c.goal_type ?? null,
    goal_needs_whole_amount: c.goal_needs_whole_amount ?? null,
    goal_day: c.goal_day ?? null,
    goal_cadence: c.goal_cadence ?? null,
    goal_cadence_frequency: c.goal_cadence_frequency ?? null,
    goal_creation_month: c.goal_creation_month ?? null,
    goal_target: c.goal_target ?? null,
    goal_target_month: c.goal_target_month ?? null,
    goal_target_date: c.goal_target_date ?? null,
    goal_percentage_complete: c.goal_percentage_complete ?? null,
    goal_months_to_budget: c.goal_months_to_budget ?? null,
    goal_under_funded: c.goal_under_funded ?? null,
    goal_overall_funded: c.goal_overall_funded ?? null,
    goal_overall_left: c.goal_overall_left ?? null,
    goal_snoozed_at: c.goal_snoozed_at ?? null,
    deleted: c.deleted,
  };
}

/**
 * A category with its money companions: one literal (the same keys, in the same order, as the
 * base's fields followed by money() and nullableMoney()'s). Spreading the three objects cost
 * about 20 µs a category, a month's answer 0.9 ms, on the hosted tail (2026-11-25).
 */
export function category(l: BudgetLookup, c: E.CategoryBase): E.Category {
  const b = categoryBase(c);
  const f = l.currencyFormat;
  return {
    id: b.id,
    category_group_id: b.category_group_id,
    category_group_name: b.category_group_name,
    name: b.name,
    hidden: b.hidden,
    internal: b.internal,
    original_category_group_id: b.original_category_group_id,
    note: b.note,
    budgeted: b.budgeted,
    activity: b.activity,
    balance: b.balance,
    goal_type: b.goal_type,
    goal_needs_whole_amount: b.goal_needs_whole_amount,
    goal_day: b.goal_day,
    goal_cadence: b.goal_cadence,
    goal_cadence_frequency: b.goal_cadence_frequency,
    goal_creation_month: b.goal_creation_month,
    goal_target: b.goal_target,
    goal_target_month: b.goal_target_month,
    goal_target_date: b.goal_target_date,
    goal_percentage_complete: b.goal_percentage_complete,
    goal_months_to_budget: b.goal_months_to_budget,
    goal_under_funded: b.goal_under_funded,
    goal_overall_funded: b.goal_overall_funded,
    goal_overall_left: b.goal_overall_left,
    goal_snoozed_at: b.goal_snoozed_at,
    deleted: b.deleted,
    balance_formatted: formatMilliunits(b.balance, f),
    balance_currency: milliunitsToCurrencyNumber(b.balance),
    activity_formatted: formatMilliunits(b.activity, f),
    activity_currency: milliunitsToCurrencyNumber(b.activity),
    budgeted_formatted: formatMilliunits(b.budgeted, f),
    budgeted_currency: milliunitsToCurrencyNumber(b.budgeted),
    goal_target_formatted: nullableFormatted(f, b.goal_target),
    goal_target_currency: nullableCurrency(b.goal_target),
    goal_under_funded_formatted: nullableFormatted(f, b.goal_under_funded),
    goal_under_funded_currency: nullableCurrency(b.goal_under_funded),
    goal_overall_funded_formatted: nullableFormatted(f, b.goal_overall_funded),
    goal_overall_funded_currency: nullableCurrency(b.goal_overall_funded),
    goal_overall_left_formatted: nullableFormatted(f, b.goal_overall_left),
    goal_overall_left_currency: nullableCurrency(b.goal_overall_left),
  };
}

export function monthSummaryBase(m: E.MonthSummaryBase): E.MonthSummaryBase {
  return {
    month: m.month,
    note: m.note ?? null,
    income: m.income,
    budgeted: m.budgeted,
    activity: m.activity,
    to_be_budgeted: m.to_be_budgeted,
    age_of_money: m.age_of_money ?? null,
    deleted: m.deleted,
  };
}

export function monthSummary(l: BudgetLookup, m: E.MonthSummaryBase): E.MonthSummary {
  const base = monthSummaryBase(m);
  return { ...base, ...money(l.currencyFormat, base, 'income', 'budgeted', 'activity', 'to_be_budgeted') };
}

export function monthDetail(l: BudgetLookup, m: E.MonthDetailBase): E.MonthDetail {
  return { ...monthSummary(l, m), categories: m.categories.map((c) => category(l, c)) };
}

export function payee(p: E.Payee): E.Payee {
  return { id: p.id, name: p.name, transfer_account_id: p.transfer_account_id ?? null, deleted: p.deleted };
}

export function payeeLocation(p: E.PayeeLocation): E.PayeeLocation {
  return { id: p.id, payee_id: p.payee_id, latitude: p.latitude, longitude: p.longitude, deleted: p.deleted };
}

export function categoryGroup(g: E.CategoryGroup): E.CategoryGroup {
  return { id: g.id, name: g.name, hidden: g.hidden, internal: g.internal, deleted: g.deleted };
}

export function moneyMovement(l: BudgetLookup, m: E.MoneyMovementBase): E.MoneyMovement {
  const base: E.MoneyMovementBase = {
    id: m.id,
    month: m.month ?? null,
    moved_at: m.moved_at ?? null,
    note: m.note ?? null,
    money_movement_group_id: m.money_movement_group_id ?? null,
    performed_by_user_id: m.performed_by_user_id ?? null,
    from_category_id: m.from_category_id ?? null,
    to_category_id: m.to_category_id ?? null,
    amount: m.amount,
  };
  return { ...base, ...money(l.currencyFormat, base, 'amount') };
}

export function moneyMovementGroup(g: E.MoneyMovementGroup): E.MoneyMovementGroup {
  return { id: g.id, group_created_at: g.group_created_at, month: g.month, note: g.note ?? null, performed_by_user_id: g.performed_by_user_id ?? null };
}

export function scheduledSubBase(l: BudgetLookup, x: E.ScheduledSubTransactionBase): E.ScheduledSubTransactionBase {
  return {
    id: x.id,
    scheduled_transaction_id: x.scheduled_transaction_id,
    amount: x.amount,
    memo: x.memo ?? null,
    payee_id: x.payee_id ?? null,
    payee_name: l.payeeName(x.payee_id ?? null),
    category_id: x.category_id ?? null,
    category_name: l.categoryName(x.category_id ?? null),
    transfer_account_id: x.transfer_account_id ?? null,
    deleted: x.deleted,
  };
}

export function scheduledBase(s: E.ScheduledTransactionSummaryBase): E.ScheduledTransactionSummaryBase {
  return {
    id: s.id,
    date_first: s.date_first,
    date_next: s.date_next,
    frequency: s.frequency,
    amount: s.amount,
    memo: s.memo ?? null,
    flag_color: s.flag_color ?? null,
    flag_name: s.flag_name ?? null,
    account_id: s.account_id,
    payee_id: s.payee_id ?? null,
    category_id: s.category_id ?? null,
    transfer_account_id: s.transfer_account_id ?? null,
    deleted: s.deleted,
  };
}

export function scheduledDetail(
  l: BudgetLookup,
  s: E.ScheduledTransactionSummaryBase,
  subs: readonly E.ScheduledSubTransactionBase[],
): E.ScheduledTransactionDetail {
  const base = scheduledBase(s);
  const lines = subs.map((x) => scheduledSubBase(l, x));
  return {
    ...base,
    ...money(l.currencyFormat, base, 'amount'),
    account_name: l.account(s.account_id)?.name ?? '',
    payee_name: l.payeeName(base.payee_id ?? null),
    category_name: lines.length ? 'Split' : l.categoryName(base.category_id ?? null),
    subtransactions: lines.map((x) => ({ ...x, ...money(l.currencyFormat, x, 'amount') })),
  };
}
