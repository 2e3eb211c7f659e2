/**
 * "Demo Household" (USD): two years of history ending today. Seven accounts (checking with
 * direct import, savings, a wallet, a credit card, a home equity line, an off-budget mortgage
 * and a closed old account), seven user category groups covering every goal type, about 1,500
 * transactions by default, scheduled transactions and pending imports. Targets follow what the
 * household usually spends (at any size); money is assigned at the start of each month and on
 * the second payday, some overspending is covered by moving money and some is left (budgeting.ts).
 */
import { addDays, addMonths, monthOf } from '../../api/dates.js';
import { createAccount } from '../domain/accounts.js';
import { createCategory, createGroup, createInternalCategories } from '../domain/categories.js';
import { payeeNamed } from '../domain/payees.js';
import { BudgetStore } from '../store/budget-store.js';
import { emptyBudget, type AccountRec, type BudgetRec, type CategoryRec, type PayeeLocationRec, type PayeeRec } from '../store/records.js';
import type { BudgetItem } from './budgeting.js';
import { goalOf, sizedCap, sizedTarget, type CategoryPlan } from './catalog.js';
import { balancingPayout, expectedSpending, fillMonth, type FillContext } from './fill.js';
import type { RunningBudget } from './figures.js';
import { dayIn, momentOn, runHistory, type BudgetEnv, type DemoClock, type MonthSlot } from './history.js';
import { HOUSEHOLD_GROUPS, HOUSEHOLD_LOCATIONS, HOUSEHOLD_MERCHANTS } from './household-catalog.js';
import { addHouseholdDebts } from './household-debts.js';
import { addHouseholdScheduled } from './household-scheduled.js';
import { addHouseholdTargets } from './household-targets.js';
import { householdExtras, planHouseholdMonth } from './household-months.js';
import { planningExtras } from './household-planning.js';
import { USD_FORMAT } from '../../api/money.js';
import { Ledger, type Entry } from './ledger.js';
import { Random } from './random.js';
import { giveBankTexts } from './bank-texts.js';
import type { Household } from './household-state.js';

/** The demo household budgets in US dollars. */
export const USD = USD_FORMAT;

const U = 1000;
const HISTORY_MONTHS = 24;
/** Months of history, the current (partial) one counted as half. */
const MONTHS = HISTORY_MONTHS + 0.5;
/** Transaction records a month's fixed backbone makes (bills, pay, transfers), about. */
const BACKBONE = 28;
/**
 * After this many months the household sets its everyday targets to what it actually spent over
 * the last year, and looks at them again every REVISIT_EVERY months: a few purchases a month make
 * a category's spending lumpy, and a target set once drifts away from it.
 */
const REVISIT_TARGETS = 12;
const REVISIT_EVERY = 6;
/** Everyday purchases a month at the default size. */
const BASE_FILL = 1500 / MONTHS - BACKBONE;
/** The Friday coffee (household-months.ts): about 4.3 Fridays of about $5.63. */
const FRIDAY_COFFEE = 24_400;

/**
 * `months` of history before the current one (default 24); fewer make a smaller budget of the
 * same shape (the sandbox's small demo, demo/index.ts).
 */
export function createHousehold(env: BudgetEnv, transactions = 1500, months = HISTORY_MONTHS): BudgetRec {
  const ids = new Random(`${env.seed}|household|ids`);
  const rng = new Random(`${env.seed}|household`);
  const today = env.now.toISOString().slice(0, 10);
  const firstMonth = addMonths(monthOf(today), -months);
  let time = new Date(`${firstMonth}T07:00:00.000Z`);
  const clock: DemoClock = { now: env.now, today, set: (t) => (time = t) };
  const store = new BudgetStore(
    emptyBudget({
      id: ids.uuid(),
      split_category_id: ids.uuid(),
      name: 'Demo Household',
      first_month: firstMonth,
      now: time.toISOString(),
      date_format: { format: 'MM/DD/YYYY' },
      currency_format: USD,
    }),
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
    expected: new Map(),
    scale: 1,
    debts: new Map(),
    extras: [],
    payee(name) {
      let p = payees.get(name);
      if (!p) payees.set(name, (p = payeeNamed(store, name)));
      return p;
    },
    transferTo: (account) => store.rec.payees.get(account.transfer_payee_id)!,
  };
  let fill: FillContext | undefined;
  const targets = new Map<string, { plan: CategoryPlan; from: number }>();
  const fillPerMonth = Math.max(0, transactions / (months + 0.5) - BACKBONE);
  h.scale = Math.max(1, fillPerMonth / BASE_FILL);
  h.expected = expectedSpending(HOUSEHOLD_MERCHANTS, fillPerMonth);
  h.expected.set('coffee', (h.expected.get('coffee') ?? 0) + FRIDAY_COFFEE);

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
        h.extras = [...householdExtras(h, rng.cents(52, 96)), ...planningExtras(h)];
      },
      // The debts added this month open before its plan, so its purchases still fill to the count asked for.
      plan: (slot) => [...(slot.isCurrent ? addHouseholdDebts(h, slot) : []), ...planHouseholdMonth(h, slot)],
      fill: (slot, count) => fillMonth(fill!, slot, count),
      budget: (slot) => ({
        month: slot.month,
        items: budgetItems(h),
        sinks: [{ category: h.cat.emergency!, upTo: h.cat.emergency!.goal!.target }, { category: h.cat.rainy! }],
        moments: [
          momentOn(clock, rng, slot.month, 18).toISOString(),
          dayIn(slot.month, 16) <= slot.last ? momentOn(clock, rng, dayIn(slot.month, 16), 19).toISOString() : null,
        ],
        keep: rng.cents(0, 150),
        reserve: h.cat.rainy!,
        debts: h.debts,
        // Overspending in the month still running is left for now; in past months about half of
        // it was covered by moving money (a big one always), from savings the household keeps for it.
        cover: slot.isCurrent
          ? null
          : {
              at: momentOn(clock, rng, dayIn(slot.month, 28), 20).toISOString(),
              chance: 0.5,
              always: 250 * U * h.scale,
              from: [h.cat.rainy!, h.cat.stuff!, h.cat.emergency!],
            },
      }),
      endOfMonth: (slot, running) => endOfHouseholdMonth(h, slot, running, clock, targets, addDays(reconciledThrough, 4)),
      finish: () => finishHousehold(h, clock),
    },
  );
  giveBankTexts(store.rec); // bank texts that suggest_rules finds renamed (bank-texts.ts)
  return store.rec;
}

function setupHousehold(h: Household, targets: Map<string, { plan: CategoryPlan; from: number }>): void {
  const { store, firstMonth, today } = h;
  createInternalCategories(store);
  for (const group of HOUSEHOLD_GROUPS) {
    const g = createGroup(store, group.name);
    for (const c of group.categories) {
      const now = c.target && !c.targetFrom;
      h.cat[c.key] = createCategory(store, g.id, c.name, { note: c.note ?? null, goal: now ? targetOf(h, c, firstMonth) : null });
      if (c.target && c.targetFrom) targets.set(c.key, { plan: c, from: c.targetFrom });
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
  // The mortgage's payments category is paired to the loan (its DEBT target: API 1.87's rules).
  if (h.cat.mortgage) h.cat.mortgage.linked_account_id = h.acc.mortgage.id;
}

/** A category's target as the household sets it (from its usual spending, or grown with its size). */
function targetOf(h: Household, plan: CategoryPlan, month: string) {
  const spec = sizedTarget(plan, h.expected.get(plan.key) ?? 0, h.scale);
  return spec ? goalOf(spec, month, h.today) : null;
}

/** Payment categories first (a card must be payable), then the groups in display order. */
function budgetItems(h: Household): BudgetItem[] {
  const items: BudgetItem[] = [];
  for (const c of h.store.rec.categories.values()) if (c.role === 'credit_card_payment') items.push({ category: c, policy: 'payment', action: 1 });
  for (const group of HOUSEHOLD_GROUPS) {
    for (const plan of group.categories) {
      const item: BudgetItem = {
        category: h.cat[plan.key]!,
        policy: plan.policy ?? 'cover',
        action: group.action,
        expected: Math.round(h.expected.get(plan.key) ?? 0),
      };
      const cap = sizedCap(plan, h.scale);
      if (cap !== undefined) item.cap = cap;
      items.push(item);
    }
  }
  return items;
}

function endOfHouseholdMonth(
  h: Household,
  slot: MonthSlot,
  running: RunningBudget,
  clock: DemoClock,
  targets: Map<string, { plan: CategoryPlan; from: number }>,
  reconciledOn: string,
): void {
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
  for (const [key, t] of targets) if (t.from === slot.index) store.stamp(h.cat[key]!).goal = targetOf(h, t.plan, slot.month);
  // A year in, and twice a year after, the everyday targets become what the household actually
  // spent over the last year (closed months only: the current one is not over).
  if (!slot.isCurrent && slot.index >= REVISIT_TARGETS && (slot.index - REVISIT_TARGETS) % REVISIT_EVERY === 0) {
    for (const group of HOUSEHOLD_GROUPS) {
      for (const plan of group.categories) {
        if (!plan.habitTarget) continue;
        const c = h.cat[plan.key]!;
        const spec = sizedTarget(plan, running.average(c, REVISIT_TARGETS), h.scale);
        if (spec && c.goal) store.stamp(c).goal = { ...goalOf(spec, c.goal.creation_month, h.today), creation_month: c.goal.creation_month };
      }
    }
  }
  // The card's opening debt is paid off in the first month: its target has done its job.
  if (slot.index === 0) {
    for (const c of store.rec.categories.values()) if (c.role === 'credit_card_payment' && c.goal) store.stamp(c).goal = null;
  }
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
  addHouseholdTargets(store, today);
}
