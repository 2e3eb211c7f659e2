/**
 * "Demo Household" (USD): two years of history ending today. Seven accounts (checking with
 * direct import, savings, a wallet, a credit card, a home equity line, an off-budget mortgage
 * and a closed old account), seven user category groups covering every goal type, about 1,500
 * transactions by default, monthly assignments, scheduled transactions and pending imports.
 */
import { addDays, addMonths, monthOf } from '../../api/dates.js';
import { createAccount } from '../domain/accounts.js';
import { createCategory, createGroup, createInternalCategories } from '../domain/categories.js';
import { payeeNamed } from '../domain/payees.js';
import { BudgetStore } from '../store/budget-store.js';
import { emptyBudget, type AccountRec, type BudgetRec, type CategoryRec, type PayeeLocationRec, type PayeeRec } from '../store/records.js';
import type { BudgetItem } from './budgeting.js';
import { goalOf, type TargetSpec } from './catalog.js';
import { balancingPayout, fillMonth, type FillContext } from './fill.js';
import { dayIn, momentOn, runHistory, type BudgetEnv, type DemoClock, type MonthSlot } from './history.js';
import { HOUSEHOLD_GROUPS, HOUSEHOLD_LOCATIONS, HOUSEHOLD_MERCHANTS } from './household-catalog.js';
import { addHouseholdScheduled } from './household-scheduled.js';
import { householdExtras, planHouseholdMonth } from './household-months.js';
import { USD_FORMAT } from '../../api/money.js';
import { Ledger, type Entry } from './ledger.js';
import { Random } from './random.js';

/** The demo household budgets in US dollars. */
export const USD = USD_FORMAT;

const U = 1000;
const HISTORY_MONTHS = 24;

type AccountKey = 'checking' | 'savings' | 'wallet' | 'visa' | 'loc' | 'mortgage' | 'oldBank';

/** Everything the month planner needs about the budget being built. */
export interface Household {
  store: BudgetStore;
  rng: Random;
  ledger: Ledger;
  today: string;
  firstMonth: string;
  acc: Record<AccountKey, AccountRec>;
  cat: Record<string, CategoryRec>;
  rta: CategoryRec;
  primeMonth: number;
  /** Month index of the home equity line draw. */
  drawMonth: number;
  /** Cash the month's planned wallet purchases need (for the ATM top-up). */
  walletPlanned: number;
  extras: Entry[];
  payee(name: string): PayeeRec;
  transferTo(account: AccountRec): PayeeRec;
}

export function createHousehold(env: BudgetEnv, transactions = 1500): BudgetRec {
  const ids = new Random(`${env.seed}|household|ids`);
  const rng = new Random(`${env.seed}|household`);
  const today = env.now.toISOString().slice(0, 10);
  const firstMonth = addMonths(monthOf(today), -HISTORY_MONTHS);
  let time = new Date(`${firstMonth}T07:00:00.000Z`);
  const clock: DemoClock = { now: env.now, today, set: (t) => (time = t) };
  const store = new BudgetStore(
    emptyBudget({ id: ids.uuid(), split_category_id: ids.uuid(), name: 'Demo Household', first_month: firstMonth, now: time.toISOString(), date_format: { format: 'MM/DD/YYYY' }, currency_format: USD }),
    { clock: () => time, newId: () => ids.uuid(), userId: env.userId },
  );
  // Statements up to the end of the month before last have been reconciled.
  const reconciledThrough = addDays(addMonths(monthOf(today), -1), -1);
  const through = new Map<string, string>();
  const ledger = new Ledger(store, rng, { today, reconciledThrough: through, importSince: addDays(today, -45) });

  const payees = new Map<string, PayeeRec>();
  const h: Household = {
    store,
    rng,
    ledger,
    today,
    firstMonth,
    acc: {} as Household['acc'],
    cat: {},
    rta: undefined as unknown as CategoryRec, // set by setup(), before any month is planned
    primeMonth: Number(addMonths(firstMonth, 2).slice(5, 7)),
    drawMonth: 9,
    walletPlanned: 0,
    extras: [],
    payee(name) {
      let p = payees.get(name);
      if (!p) payees.set(name, (p = payeeNamed(store, name)));
      return p;
    },
    transferTo: (account) => store.rec.payees.get(account.transfer_payee_id)!,
  };
  let fill: FillContext | undefined;
  const targets = new Map<string, { spec: TargetSpec; from: number }>();

  runHistory(
    { store, ledger, rng, clock, firstMonth, target: transactions },
    {
      setup() {
        setupHousehold(h, targets);
        for (const key of ['checking', 'savings', 'visa', 'loc', 'mortgage'] as const) through.set(h.acc[key].id, reconciledThrough);
        through.set(h.acc.oldBank.id, today);
        fill = {
          rng,
          ledger,
          merchants: HOUSEHOLD_MERCHANTS,
          cat: h.cat,
          rta: h.rta,
          payee: h.payee,
          accounts: { card: h.acc.visa, checking: h.acc.checking, cash: h.acc.wallet },
          payout: balancingPayout(HOUSEHOLD_MERCHANTS),
          onCash: (amount) => (h.walletPlanned += amount),
        };
        h.extras = householdExtras(h, rng.cents(52, 96));
      },
      plan: (slot) => planHouseholdMonth(h, slot),
      fill: (slot, count) => fillMonth(fill!, slot, count),
      budget: (slot) => ({
        month: slot.month,
        items: budgetItems(h),
        sinks: [{ category: h.cat.emergency!, upTo: 10_000 * U }, { category: h.cat.rainy! }],
        moments: [
          momentOn(clock, rng, slot.month, 18).toISOString(),
          dayIn(slot.month, 16) <= slot.last ? momentOn(clock, rng, dayIn(slot.month, 16), 19).toISOString() : null,
        ],
        keep: rng.cents(0, 150),
        reserve: h.cat.rainy!,
      }),
      endOfMonth: (slot) => endOfHouseholdMonth(h, slot, clock, targets, addDays(reconciledThrough, 4)),
      finish: () => finishHousehold(h, clock),
    },
  );
  return store.rec;
}

function setupHousehold(h: Household, targets: Map<string, { spec: TargetSpec; from: number }>): void {
  const { store, firstMonth, today } = h;
  createInternalCategories(store);
  for (const group of HOUSEHOLD_GROUPS) {
    const g = createGroup(store, group.name);
    for (const c of group.categories) {
      const now = c.target && !c.targetFrom;
      h.cat[c.key] = createCategory(store, g.id, c.name, { note: c.note ?? null, goal: now ? goalOf(c.target!, firstMonth, today) : null });
      if (c.target && c.targetFrom) targets.set(c.key, { spec: c.target, from: c.targetFrom });
    }
  }
  for (const m of HOUSEHOLD_MERCHANTS) {
    if (m.category !== 'income' && !h.cat[m.category]) throw new Error(`demo catalog: merchant ${m.name} names unknown category ${m.category}`);
  }
  h.rta = store.categoryByRole('ready_to_assign')!;
  const open = (name: string, type: AccountRec['type'], units: number, extra: Partial<Parameters<typeof createAccount>[1]> = {}) =>
    createAccount(store, { name, type, balance: units * U, date: firstMonth, ...extra });
  h.acc.checking = open('Everyday Checking', 'checking', 3200, { direct_import_linked: true, note: 'Joint account at Umpqua Bank' });
  h.acc.savings = open('Rainy Day Savings', 'savings', 8000, { note: 'High-yield savings, 4.1% APY' });
  h.acc.wallet = open('Wallet', 'cash', 150);
  h.acc.visa = open('Visa Rewards', 'creditCard', -420, { note: 'Statement closes on the 18th' });
  h.acc.loc = open('Home Equity Line', 'lineOfCredit', 0);
  const refinanced = addMonths(firstMonth, 12);
  h.acc.mortgage = open('Lake Cabin Mortgage', 'mortgage', -142_000, {
    on_budget: false,
    note: 'Columbia Bank, 30-year fixed; refinanced after a year',
    debt: {
      debt_interest_rates: { [firstMonth]: 6250, [refinanced]: 5875 },
      debt_minimum_payments: { [firstMonth]: 1150 * U },
      debt_escrow_amounts: { [firstMonth]: 200 * U },
    },
  });
  h.acc.oldBank = open('Old Credit Union Checking', 'checking', 1250);
}

/** Payment categories first (a card must be payable), then the groups in display order. */
function budgetItems(h: Household): BudgetItem[] {
  const items: BudgetItem[] = [];
  for (const c of h.store.rec.categories.values()) if (c.role === 'credit_card_payment') items.push({ category: c, policy: 'payment', action: 1 });
  for (const group of HOUSEHOLD_GROUPS) {
    for (const plan of group.categories) {
      const item: BudgetItem = { category: h.cat[plan.key]!, policy: plan.policy ?? 'cover', action: group.action };
      if (plan.cap !== undefined) item.cap = plan.cap * U;
      items.push(item);
    }
  }
  return items;
}

function endOfHouseholdMonth(h: Household, slot: MonthSlot, clock: DemoClock, targets: Map<string, { spec: TargetSpec; from: number }>, reconciledOn: string): void {
  const { store, acc, rng } = h;
  if (slot.index === 2) {
    store.stamp(acc.oldBank).closed = true;
    acc.oldBank.last_reconciled_at = momentOn(clock, rng, dayIn(slot.month, 10), 16).toISOString();
  }
  if (reconciledOn >= slot.month && reconciledOn <= slot.last) {
    const at = momentOn(clock, rng, reconciledOn, 17).toISOString();
    for (const key of ['checking', 'savings', 'visa', 'loc', 'mortgage'] as const) store.stamp(acc[key]).last_reconciled_at = at;
  }
  if (slot.index === 6) store.stamp(h.cat.gym!).hidden = true;
  for (const [key, t] of targets) if (t.from === slot.index) store.stamp(h.cat[key]!).goal = goalOf(t.spec, slot.month, h.today);
}

function finishHousehold(h: Household, clock: DemoClock): void {
  const { store, rng, today } = h;

  const locations: [string, [string, string]][] = [
    ...HOUSEHOLD_MERCHANTS.filter((m) => m.location).map((m): [string, [string, string]] => [m.name, m.location!]),
    ...Object.entries(HOUSEHOLD_LOCATIONS),
  ];
  for (const [name, [latitude, longitude]] of locations) {
    const loc = store.stamp<PayeeLocationRec>({ id: store.env.newId(), payee_id: h.payee(name).id, latitude, longitude, deleted: false, knowledge: 0 });
    store.rec.payee_locations.set(loc.id, loc);
  }

  // Car maintenance is fully funded for now: its target is snoozed this month.
  const carMaint = store.stamp(h.cat.car_maint!);
  carMaint.goal = { ...carMaint.goal!, snoozed_at: momentOn(clock, rng, today, 9).toISOString() };

  addHouseholdScheduled(h);
}
