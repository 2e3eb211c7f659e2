/**
 * The made-up budget's entities and rows (warm-budget.ts): a household's accounts, payees and
 * categories, and a year of its transactions, every field present as an export has it (null when
 * unset). Deterministic: the same `today` gives the same budget.
 */
import type * as E from '../api/schemas/entities.js';

/** The budget's months, the current one last. */
export const WARM_MONTHS = 12;
/** Rows a month besides the bills and the transfers. */
const SPENDING_A_MONTH = 24;

/** A made-up id of kind `kind` (0a: the budget's entities, 0b: transactions, 0c: subtransactions, 0d: scheduled). */
export const uuid = (kind: string, n: number): string => `${kind}000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const ACCOUNTS: Pick<E.AccountBase, 'name' | 'type' | 'on_budget'>[] = [
  { name: 'Checking', type: 'checking', on_budget: true },
  { name: 'Savings', type: 'savings', on_budget: true },
  { name: 'Visa', type: 'creditCard', on_budget: true },
  { name: 'Cash', type: 'cash', on_budget: true },
  { name: 'Car loan', type: 'autoLoan', on_budget: false },
];
export const [CHECKING, SAVINGS, CARD, CASH, LOAN] = [0, 1, 2, 3, 4] as const;

/** Groups and their categories; the first group is YNAB's internal one, the second the card's. */
const GROUPS: [string, string[]][] = [
  ['Internal Master Category', ['Inflow: Ready to Assign', 'Uncategorized']],
  ['Credit Card Payments', ['Visa']],
  ['Bills', ['Rent', 'Electric', 'Internet', 'Phone', 'Insurance']],
  ['Everyday', ['Groceries', 'Dining Out', 'Transport', 'Household', 'Pharmacy']],
  ['Fun', ['Entertainment', 'Gifts', 'Hobbies']],
  ['Goals', ['Vacation', 'Emergency Fund']],
];
/** Spending: [payee, category, amount in milliunits] (each row's varies a little from it). */
const SPENDING: [string, string, number][] = [
  ['Grocer', 'Groceries', 84_370],
  ['Market', 'Groceries', 23_150],
  ['Cafe', 'Dining Out', 12_400],
  ['Pizzeria', 'Dining Out', 31_990],
  ['Transit', 'Transport', 2_750],
  ['Gas Station', 'Transport', 48_020],
  ['Hardware Store', 'Household', 19_990],
  ['Pharmacy', 'Pharmacy', 14_350],
  ['Cinema', 'Entertainment', 25_000],
  ['Bookshop', 'Hobbies', 17_990],
  ['Gift Shop', 'Gifts', 39_500],
  ['Craft Store', 'Hobbies', 11_250],
];
/** Bills, monthly: [payee, category, amount]; the last is paid by card. */
export const BILLS: [string, string, number][] = [
  ['Landlord', 'Rent', 1_450_000],
  ['Power Co', 'Electric', 96_410],
  ['Netline', 'Internet', 59_990],
  ['Mobile Co', 'Phone', 45_000],
  ['Insurer', 'Insurance', 132_500],
  ['Streaming', 'Entertainment', 15_490],
];
const FLAGS = ['red', 'orange', 'yellow', 'green', 'blue', 'purple'] as const;

/** YYYY-MM-01 of the month `back` months before `today`'s (after it, when negative). */
export function monthOf(today: string, back: number): string {
  const d = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - back);
  return d.toISOString().slice(0, 10);
}

/** Day `day` of `month` (YYYY-MM-01), not after `today`. */
export const dayOf = (month: string, day: number, today: string): string => {
  const d = `${month.slice(0, 8)}${String(day).padStart(2, '0')}`;
  return d > today ? today : d;
};

export interface WarmEntities {
  accounts: (Pick<E.AccountBase, 'id' | 'name' | 'type' | 'on_budget'> & { transferPayee: string })[];
  payees: Map<string, string>;
  groups: { id: string; name: string; internal: boolean; categories: { id: string; name: string }[] }[];
  /** A category's id by its name. */
  category: (name: string) => string;
}

export function warmEntities(): WarmEntities {
  let next = 2; // 1 is the budget's
  const id = () => uuid('0a', next++);
  const accounts = ACCOUNTS.map((a) => ({ ...a, id: id(), transferPayee: id() }));
  const names = [...new Set([...BILLS, ...SPENDING].map(([payee]) => payee)), 'Employer', 'Starting Balance'];
  const payees = new Map(names.map((name) => [name, id()]));
  const groups = GROUPS.map(([name, cats], g) => ({ id: id(), name, internal: g === 0, categories: cats.map((c) => ({ id: id(), name: c })) }));
  const byName = new Map(groups.flatMap((g) => g.categories.map((c) => [c.name, c.id] as const)));
  return { accounts, payees, groups, category: (name) => byName.get(name)! };
}

type RowFields = Partial<E.TransactionSummaryBase> & Pick<E.TransactionSummaryBase, 'date' | 'amount' | 'account_id'>;

/** Writes the rows: a transaction with every field, a transfer's two sides, a split's parts. */
class Rows {
  readonly transactions: E.TransactionSummaryBase[] = [];
  readonly subtransactions: E.SubTransactionBase[] = [];
  constructor(
    private readonly e: WarmEntities,
    private readonly today: string,
  ) {}

  row(t: RowFields): E.TransactionSummaryBase {
    const full: E.TransactionSummaryBase = {
      id: uuid('0b', this.transactions.length + 1),
      memo: null,
      cleared: t.date < monthOf(this.today, 1) ? 'reconciled' : 'cleared',
      approved: true,
      flag_color: null,
      flag_name: null,
      payee_id: null,
      category_id: null,
      transfer_account_id: null,
      transfer_transaction_id: null,
      matched_transaction_id: null,
      import_id: null,
      import_payee_name: null,
      import_payee_name_original: null,
      debt_transaction_type: null,
      deleted: false,
      ...t,
    };
    this.transactions.push(full);
    return full;
  }

  transfer(from: number, to: number, date: string, amount: number, memo: string | null, debt: E.TransactionSummaryBase['debt_transaction_type'] = null): void {
    const [a, b] = [this.e.accounts[from]!, this.e.accounts[to]!];
    const out = this.row({ date, amount: -amount, account_id: a.id, payee_id: b.transferPayee, memo, transfer_account_id: b.id });
    const back = this.row({ date, amount, account_id: b.id, payee_id: a.transferPayee, memo, transfer_account_id: a.id, debt_transaction_type: debt });
    out.transfer_transaction_id = back.id;
    back.transfer_transaction_id = out.id;
  }

  /** Splits `t` (whose category is then none) into two parts, the second one to `other`. */
  split(t: E.TransactionSummaryBase, first: string, other: string): void {
    const half = Math.trunc(t.amount / 20) * 10;
    const parts: [number, string, string | null][] = [
      [half, first, null],
      [t.amount - half, other, 'shared'],
    ];
    for (const [amount, category_id, memo] of parts) {
      const id = uuid('0c', this.subtransactions.length + 1);
      const none = { payee_id: null, payee_name: null, category_name: null, transfer_account_id: null, transfer_transaction_id: null };
      this.subtransactions.push({ id, transaction_id: t.id, amount, memo, category_id, ...none, deleted: false });
    }
  }

  /** Month `m` months back: two paychecks, the bills (some imported), the spending, the transfers. */
  month(m: number): void {
    const { accounts, payees, category } = this.e;
    const month = monthOf(this.today, m);
    const readyToAssign = category('Inflow: Ready to Assign');
    for (const day of [1, 15]) {
      const date = dayOf(month, day, this.today);
      this.row({
        date,
        amount: 2_350_000,
        account_id: accounts[CHECKING]!.id,
        payee_id: payees.get('Employer')!,
        category_id: readyToAssign,
        memo: 'Paycheck',
      });
    }
    BILLS.forEach(([payee, c, amount], b) => {
      const date = dayOf(month, 3 + b * 4, this.today);
      const imported =
        b % 2 === 0
          ? { import_id: `YNAB:${-amount}:${date}:1`, import_payee_name: payee.toUpperCase(), import_payee_name_original: `${payee.toUpperCase()} ${date}` }
          : {};
      this.row({
        date,
        amount: -amount,
        account_id: accounts[b === BILLS.length - 1 ? CARD : CHECKING]!.id,
        payee_id: payees.get(payee)!,
        category_id: category(c),
        ...imported,
      });
    });
    for (let i = 0; i < SPENDING_A_MONTH; i++) this.spending(m, month, i);
    this.transfer(CHECKING, SAVINGS, dayOf(month, 16, this.today), 400_000, 'Savings');
    this.transfer(CHECKING, CARD, dayOf(month, 20, this.today), 450_000, null);
    this.transfer(CHECKING, CASH, dayOf(month, 10, this.today), 200_000, 'ATM');
    this.transfer(CHECKING, LOAN, dayOf(month, 5, this.today), 350_000, 'Car payment', 'payment');
    if (m % 4 === 1) this.transfer(SAVINGS, CHECKING, dayOf(month, 25, this.today), 250_000, 'Vacation');
  }

  /** The month's `i`th spending: by card, cash or checking; some with a memo or a flag, some split; this month's last ones uncleared, unapproved. */
  private spending(m: number, month: string, i: number): void {
    const [payee, c, base] = SPENDING[(i + m) % SPENDING.length]!;
    const n = m * SPENDING_A_MONTH + i;
    const split = i % 11 === 5;
    const t = this.row({
      date: dayOf(month, 1 + ((i * 7) % 28), this.today),
      amount: -(base + (n % 9) * 1_110),
      account_id: this.e.accounts[i % 4 === 3 ? CASH : i % 2 ? CARD : CHECKING]!.id,
      payee_id: this.e.payees.get(payee)!,
      category_id: split ? null : this.e.category(c),
      memo: i % 3 === 0 ? `${c.toLowerCase()} #${n}` : null,
      flag_color: i % 7 === 2 ? FLAGS[n % FLAGS.length]! : null,
      ...(m === 0 && i >= 14 ? { cleared: 'uncleared' as const, approved: i < 19 } : {}),
    });
    if (split) this.split(t, this.e.category(c), this.e.category('Household'));
  }
}

/** A year of the household's rows up to `today`: the starting balances, then each month's. */
export function warmRows(e: WarmEntities, today: string): Pick<Rows, 'transactions' | 'subtransactions'> {
  const rows = new Rows(e, today);
  const first = monthOf(today, WARM_MONTHS - 1);
  const start = e.payees.get('Starting Balance')!;
  const readyToAssign = e.category('Inflow: Ready to Assign');
  rows.row({ date: first, amount: 2_500_000, account_id: e.accounts[CHECKING]!.id, payee_id: start, category_id: readyToAssign });
  rows.row({ date: first, amount: 5_000_000, account_id: e.accounts[SAVINGS]!.id, payee_id: start, category_id: readyToAssign });
  rows.row({ date: first, amount: -18_000_000, account_id: e.accounts[LOAN]!.id, payee_id: start });
  for (let m = WARM_MONTHS - 1; m >= 0; m--) rows.month(m);
  return rows;
}
