/**
 * Checks a transaction write against the budget before anything is applied, and normalizes it
 * the way the service does (Credit Card Payment categories ignored, a split's date and amount
 * kept, defaults filled). Every refusal says what was wrong; in a batch it names the index.
 */
import { addYears } from '../../api/dates.js';
import type { ExistingTransaction, NewTransaction, SaveSubTransaction } from '../../api/schemas/bodies.js';
import { MAX_ABS_MILLIUNITS } from '../../api/money.js';
import { badRequest } from '../errors.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, TransactionRec } from '../store/records.js';
import { isLinePair, type LineSpec, type TransactionChange, type TransactionSpec } from './transactions.js';

/** Formats the position of an item in a batch, as the service does: " (index: 3)". */
export const at = (index: number | undefined) => (index === undefined ? '' : ` (index: ${index})`);

export function checkDate(b: BudgetStore, date: string, index?: number): void {
  const today = b.today();
  if (date > today || date < addYears(today, -5)) {
    throw badRequest(`date must not be in the future or over 5 years ago (got ${date}, today is ${today} UTC)${at(index)}`);
  }
}

function checkAmount(amount: number, field: string, index?: number): void {
  if (Math.abs(amount) > MAX_ABS_MILLIUNITS) throw badRequest(`${field} is out of range (at most ${MAX_ABS_MILLIUNITS} milliunits)${at(index)}`);
}

function requireAccountRef(b: BudgetStore, id: string, index?: number): AccountRec {
  const a = b.account(id);
  if (!a) throw badRequest(`account_id ${id} does not exist in this budget${at(index)}`);
  return a;
}

/**
 * Normalizes the payee and category of one line (a transaction or a split line). Returns the
 * category to store: null where the service ignores it.
 */
function checkLine(
  b: BudgetStore,
  account: AccountRec,
  line: { payee_id?: string | null; category_id?: string | null },
  field: string,
  index?: number,
): string | null {
  let target: AccountRec | undefined;
  if (line.payee_id) {
    const payee = b.payee(line.payee_id);
    if (!payee) throw badRequest(`${field}payee_id ${line.payee_id} does not exist in this budget${at(index)}`);
    if (payee.transfer_account_id) {
      target = b.account(payee.transfer_account_id);
      if (!target) throw badRequest(`${field}payee_id ${line.payee_id} is the transfer payee of a deleted account${at(index)}`);
      if (target.id === account.id) throw badRequest(`${field}payee_id is this account's own transfer payee: a transfer needs another account${at(index)}`);
    }
  }
  const id = line.category_id;
  if (!id) return null;
  const category = b.category(id);
  if (!category) throw badRequest(`${field}category_id ${id} does not exist in this budget${at(index)}`);
  // Credit Card Payment categories are ignored, and so is the Uncategorized placeholder.
  if (category.role === 'credit_card_payment' || category.role === 'uncategorized') return null;
  // Tracking (off-budget) accounts have no categories, except on the budget side of a transfer.
  if (!account.on_budget && !(target && target.on_budget)) return null;
  return id;
}

function checkSubs(b: BudgetStore, account: AccountRec, amount: number, subs: SaveSubTransaction[], index?: number): LineSpec[] {
  let sum = 0;
  const lines = subs.map((x, i) => {
    checkAmount(x.amount, `subtransactions[${i}].amount`, index);
    sum += x.amount;
    return {
      amount: x.amount,
      payee_id: x.payee_id ?? null,
      payee_name: x.payee_id ? null : (x.payee_name ?? null),
      category_id: checkLine(b, account, x, `subtransactions[${i}].`, index),
      memo: x.memo ?? null,
    };
  });
  if (sum !== amount) {
    throw badRequest(`amount must equal the sum of subtransaction amounts (amount ${amount}, sum ${sum})${at(index)}`);
  }
  return lines;
}

export function checkNewTransaction(b: BudgetStore, input: NewTransaction, index?: number): TransactionSpec {
  const account = requireAccountRef(b, input.account_id, index);
  checkDate(b, input.date, index);
  checkAmount(input.amount, 'amount', index);
  const subs = input.subtransactions?.length ? checkSubs(b, account, input.amount, input.subtransactions, index) : undefined;
  return {
    account_id: account.id,
    date: input.date,
    amount: input.amount,
    payee_id: input.payee_id ?? null,
    payee_name: input.payee_id ? null : (input.payee_name ?? null),
    category_id: subs ? null : checkLine(b, account, input, '', index),
    memo: input.memo ?? null,
    cleared: input.cleared ?? 'uncleared',
    approved: input.approved ?? false,
    flag_color: input.flag_color ?? null,
    import_id: input.import_id ?? null,
    import_payee_name: input.import_id ? (input.payee_name ?? null) : null,
    import_payee_name_original: input.import_id ? (input.payee_name ?? null) : null,
    subtransactions: subs,
  };
}

/**
 * Checks a change to an existing transaction. A split's date, amount and category are kept
 * (the service ignores changes to them); its lines cannot be replaced.
 */
export function checkChange(b: BudgetStore, t: TransactionRec, input: ExistingTransaction, index?: number): TransactionChange {
  const split = t.subtransactions.some((x) => !x.deleted);
  if (split && input.subtransactions?.length) {
    throw badRequest(`updating subtransactions on an existing split transaction is not supported${at(index)}`);
  }
  if (isLinePair(b, t)) {
    const moved = ['account_id', 'date', 'amount', 'payee_id', 'payee_name', 'category_id', 'subtransactions'].filter(
      (f) => (input as Record<string, unknown>)[f] !== undefined,
    );
    if (moved.length) {
      throw badRequest(
        `this transaction is the other side of a transfer made by a split line; change ${moved.join(', ')} on the split transaction instead${at(index)}`,
      );
    }
  }
  const account = requireAccountRef(b, input.account_id ?? t.account_id, index);
  if (split && account.id !== t.account_id) {
    // A split's transfer lines move with it: none may end up transferring to its own account.
    const i = t.subtransactions.findIndex((x) => !x.deleted && x.transfer_account_id === account.id);
    if (i >= 0)
      throw badRequest(`subtransactions[${i}] is a transfer to account ${account.id}: the split cannot move into the account it transfers to${at(index)}`);
  }
  const change: TransactionChange = {};
  if (input.account_id !== undefined) change.account_id = account.id;
  if (!split && input.date !== undefined) {
    checkDate(b, input.date, index);
    change.date = input.date;
  }
  if (!split && input.amount !== undefined) {
    checkAmount(input.amount, 'amount', index);
    change.amount = input.amount;
  }
  if (input.payee_id !== undefined || input.payee_name !== undefined) {
    change.payee_id = input.payee_id ?? null;
    change.payee_name = input.payee_id ? null : (input.payee_name ?? null);
  }
  const payeeForCheck = change.payee_id !== undefined ? change.payee_id : t.payee_id;
  // A Credit Card Payment category is ignored: on an update that means the category stays as it is.
  const ignoredCategory = !!input.category_id && b.category(input.category_id)?.role === 'credit_card_payment';
  if (!split && input.category_id !== undefined && !ignoredCategory) {
    change.category_id = checkLine(b, account, { payee_id: payeeForCheck, category_id: input.category_id }, '', index);
  } else if (!split && (change.account_id !== undefined || change.payee_id !== undefined)) {
    // Re-check the kept category against the new account or payee (e.g. moved off budget).
    change.category_id = checkLine(b, account, { payee_id: payeeForCheck, category_id: t.category_id }, '', index);
  }
  if (input.memo !== undefined) change.memo = input.memo;
  if (input.cleared !== undefined) change.cleared = input.cleared;
  if (input.approved !== undefined) change.approved = input.approved;
  if (input.flag_color !== undefined) change.flag_color = input.flag_color;
  if (!split && input.subtransactions?.length) {
    change.subtransactions = checkSubs(b, account, change.amount ?? t.amount, input.subtransactions, index);
  }
  return change;
}
