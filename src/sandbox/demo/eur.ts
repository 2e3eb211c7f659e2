/**
 * "Haushalt Berlin" (EUR, German number and date format): a single person's half year in
 * Berlin. Small on purpose: three accounts, three groups, a dozen categories (a few with
 * targets), 150 transactions with splits and transfers, and two scheduled transactions.
 */
import { addDays, addMonths, monthOf } from '../../api/dates.js';
import { createAccount } from '../domain/accounts.js';
import { createCategory, createGroup, createInternalCategories } from '../domain/categories.js';
import { payeeNamed } from '../domain/payees.js';
import { BudgetStore } from '../store/budget-store.js';
import { emptyBudget, type AccountRec, type BudgetRec, type CategoryRec, type PayeeRec } from '../store/records.js';
import type { BudgetItem } from './budgeting.js';
import { goalOf, sizedTarget, type GroupPlan, type Merchant } from './catalog.js';
import { balancingPayout, expectedSpending, fillMonth, type FillContext } from './fill.js';
import { dayIn, momentOn, runHistory, type BudgetEnv, type DemoClock, type MonthSlot, type Planned } from './history.js';
import { Ledger, type Entry } from './ledger.js';
import { Random } from './random.js';
import { addScheduled } from './scheduled.js';

export const EUR = {
  iso_code: 'EUR',
  example_format: '123.456,78',
  decimal_digits: 2,
  decimal_separator: ',',
  symbol_first: false,
  group_separator: '.',
  currency_symbol: '€',
  display_symbol: true,
};

const U = 1000;
const TRANSACTIONS = 150;
/** Everyday purchases a month: the transactions less the monthly backbone (about 9), over 5.5 months. */
const FILL_PER_MONTH = TRANSACTIONS / 5.5 - 9;

const GROUPS: GroupPlan[] = [
  {
    name: 'Fixkosten',
    action: 1,
    categories: [
      { key: 'miete', name: 'Miete', target: { kind: 'need', target: 1050, whole: true, day: 3 }, note: 'Warmmiete inkl. Nebenkosten' },
      { key: 'strom', name: 'Strom', target: { kind: 'monthly', target: 65 } },
      { key: 'internet', name: 'Internet & Handy', target: { kind: 'monthly', target: 45 } },
      { key: 'ticket', name: 'Deutschlandticket', target: { kind: 'monthly', target: 58 } },
      { key: 'rundfunk', name: 'Rundfunkbeitrag', target: { kind: 'need', target: 19, whole: false } },
    ],
  },
  {
    name: 'Alltag',
    action: 1,
    categories: [
      { key: 'lebensmittel', name: 'Lebensmittel', target: { kind: 'need', target: 380, whole: false }, habitTarget: true },
      { key: 'drogerie', name: 'Drogerie' },
      { key: 'essen', name: 'Restaurants & Cafés' },
      { key: 'freizeit', name: 'Freizeit' },
    ],
  },
  {
    name: 'Sparziele',
    action: 2,
    categories: [
      { key: 'notgroschen', name: 'Notgroschen', target: { kind: 'balance', target: 5000 }, cap: 200 },
      { key: 'urlaub', name: 'Urlaub', target: { kind: 'byDate', target: 1800, monthsAhead: 5 }, note: 'Lissabon im Herbst' },
      { key: 'puffer', name: 'Puffer' },
    ],
  },
];

const MERCHANTS: Merchant[] = [
  {
    name: 'REWE',
    category: 'lebensmittel',
    min: 12,
    max: 75,
    weight: 6,
    pay: 'checking',
    split: [{ category: 'drogerie', min: 2, max: 15 }],
    splitChance: 0.4,
  },
  { name: 'EDEKA', category: 'lebensmittel', min: 8, max: 55, weight: 3, pay: 'checking' },
  { name: 'ALDI SÜD', category: 'lebensmittel', min: 10, max: 45, weight: 3, pay: 'checking' },
  { name: 'Lidl', category: 'lebensmittel', min: 8, max: 40, weight: 2, pay: 'cash' },
  { name: 'dm-drogerie markt', category: 'drogerie', min: 4, max: 30, weight: 2, pay: 'checking', memos: ['Zahnpasta & Shampoo'] },
  { name: 'Rossmann', category: 'drogerie', min: 3, max: 25, weight: 1, pay: 'checking' },
  { name: 'Curry 36', category: 'essen', min: 5, max: 12, weight: 1.5, pay: 'cash' },
  { name: "Mustafa's Gemüse Kebap", category: 'essen', min: 5, max: 10, weight: 1.5, pay: 'cash', memos: ['Lange Schlange'] },
  { name: 'Café Einstein', category: 'essen', min: 4, max: 18, weight: 2, pay: 'checking' },
  { name: 'Bäckerei Siebert', category: 'essen', min: 2, max: 8, weight: 2, pay: 'cash' },
  { name: 'Kino International', category: 'freizeit', min: 9, max: 24, weight: 0.8, pay: 'checking' },
  { name: 'Dussmann das KulturKaufhaus', category: 'freizeit', min: 10, max: 45, weight: 0.8, pay: 'checking', memos: ['Buch für Anna'] },
];

export function createBerlin(env: BudgetEnv): BudgetRec {
  const ids = new Random(`${env.seed}|berlin|ids`);
  const rng = new Random(`${env.seed}|berlin`);
  const today = env.now.toISOString().slice(0, 10);
  const firstMonth = addMonths(monthOf(today), -5);
  let time = new Date(`${firstMonth}T06:30:00.000Z`);
  const clock: DemoClock = { now: env.now, today, set: (t) => (time = t) };
  const store = new BudgetStore(
    emptyBudget({
      id: ids.uuid(),
      split_category_id: ids.uuid(),
      name: 'Haushalt Berlin',
      first_month: firstMonth,
      now: time.toISOString(),
      date_format: { format: 'DD.MM.YYYY' },
      currency_format: EUR,
    }),
    { clock: () => time, newId: () => ids.uuid(), userId: env.userId },
  );
  const through = new Map<string, string>();
  const ledger = new Ledger(store, rng, { today, reconciledThrough: through, importSince: addDays(today, 1) });
  const cat: Record<string, CategoryRec> = {};
  const acc = {} as Record<'giro' | 'tagesgeld' | 'bar', AccountRec>;
  const payees = new Map<string, PayeeRec>();
  const payee = (name: string) => payees.get(name) ?? payees.set(name, payeeNamed(store, name)).get(name)!;
  const transferTo = (a: AccountRec) => store.rec.payees.get(a.transfer_payee_id)!;
  let fill: FillContext | undefined;
  let cashPlanned = 0;
  const expected = expectedSpending(MERCHANTS, FILL_PER_MONTH);

  const plan = (slot: MonthSlot): Planned[] => {
    const items: Planned[] = [];
    // Entries are made when posted; their date is the planned day's (so `make` leaves it blank).
    const on = (day: number, make: () => Entry, records = 1) => {
      const date = dayIn(slot.month, day);
      if (date <= slot.last) items.push({ date, records, run: () => ledger.post({ ...make(), date }) });
    };
    const bill = (day: number, account: AccountRec, name: string, amount: number, key: string, memo: string | null = null) =>
      on(day, () => ({ date: '', account, amount: -amount, payee: payee(name), category: cat[key], memo }));
    on(1, () => ({ date: '', account: acc.giro, amount: 2600 * U, payee: payee('Muster Software GmbH'), category: fill!.rta, memo: 'Gehalt' }));
    bill(3, acc.giro, 'Hausverwaltung Krause', 1050 * U, 'miete');
    bill(1, acc.giro, 'BVG', 58 * U, 'ticket', 'Deutschlandticket');
    bill(15, acc.giro, 'Vattenfall', 65 * U, 'strom', 'Abschlag');
    bill(20, acc.giro, 'Telekom', 44_950, 'internet');
    if (slot.index % 3 === 1) bill(15, acc.giro, 'Beitragsservice ARD ZDF', 55_080, 'rundfunk', 'Quartalsbeitrag');
    on(4, () => ({ date: '', account: acc.giro, amount: -300 * U, payee: transferTo(acc.tagesgeld), memo: 'Sparen' }), 2);
    const cashStart = ledger.balance(acc.bar);
    cashPlanned = 0;
    on(
      6,
      () => ({
        date: '',
        account: acc.giro,
        amount: -Math.max(50 * U, Math.ceil((cashPlanned + 30 * U - cashStart) / (50 * U)) * 50 * U),
        payee: transferTo(acc.bar),
        memo: 'Geldautomat',
      }),
      2,
    );
    if (slot.index === 2) {
      // A big weekly shop split between food and toiletries (besides the random REWE splits).
      on(12, () => ({
        date: '',
        account: acc.giro,
        amount: -86_370,
        payee: payee('REWE'),
        memo: 'Großeinkauf',
        lines: [
          { amount: -61_420, category: cat.lebensmittel },
          { amount: -24_950, category: cat.drogerie, memo: 'Waschmittel' },
        ],
      }));
    }
    return items;
  };

  runHistory(
    { store, ledger, rng, clock, firstMonth, target: TRANSACTIONS },
    {
      setup() {
        createInternalCategories(store);
        for (const group of GROUPS) {
          const g = createGroup(store, group.name);
          for (const c of group.categories) {
            const target = sizedTarget(c, expected.get(c.key) ?? 0, 1);
            cat[c.key] = createCategory(store, g.id, c.name, { note: c.note ?? null, goal: target ? goalOf(target, firstMonth, today) : null });
          }
        }
        const open = (name: string, type: AccountRec['type'], units: number, note: string | null) =>
          createAccount(store, { name, type, balance: units * U, date: firstMonth, note });
        acc.giro = open('Girokonto', 'checking', 2400, 'Sparkasse Berlin');
        acc.tagesgeld = open('Tagesgeld', 'savings', 6000, '2,5 % p. a.');
        acc.bar = open('Bargeld', 'cash', 120, null);
        const reconciled = addDays(addMonths(monthOf(today), -1), -1);
        through.set(acc.giro.id, reconciled).set(acc.tagesgeld.id, reconciled);
        fill = {
          rng,
          ledger,
          merchants: MERCHANTS,
          cat,
          rta: store.categoryByRole('ready_to_assign')!,
          payee,
          accounts: { card: acc.giro, checking: acc.giro, cash: acc.bar },
          payout: balancingPayout(MERCHANTS),
          onCash: (amount) => (cashPlanned += amount),
        };
      },
      plan,
      fill: (slot, count) => fillMonth(fill!, slot, count),
      budget: (slot) => ({
        month: slot.month,
        items: GROUPS.flatMap((g) =>
          g.categories.map((c): BudgetItem => ({
            category: cat[c.key]!,
            policy: c.policy ?? 'cover',
            action: g.action,
            expected: Math.round(expected.get(c.key) ?? 0),
            ...(c.cap ? { cap: c.cap * U } : {}),
          })),
        ),
        sinks: [{ category: cat.notgroschen!, upTo: 5000 * U }, { category: cat.puffer! }],
        moments: [
          momentOn(clock, rng, slot.month, 17).toISOString(),
          dayIn(slot.month, 2) <= slot.last ? momentOn(clock, rng, dayIn(slot.month, 2), 20).toISOString() : null,
        ],
        keep: rng.cents(0, 40),
        reserve: cat.puffer!,
        cover: slot.isCurrent
          ? null
          : { at: momentOn(clock, rng, dayIn(slot.month, 27), 19).toISOString(), chance: 0.5, from: [cat.puffer!, cat.notgroschen!] },
      }),
      finish() {
        addScheduled(store, {
          frequency: 'monthly',
          date_first: dayIn(firstMonth, 3),
          account: acc.giro,
          payee: payee('Hausverwaltung Krause'),
          amount: -1050 * U,
          category: cat.miete,
        });
        addScheduled(store, {
          frequency: 'every3Months',
          date_first: nextQuarterly(firstMonth, 1, 15, today),
          account: acc.giro,
          payee: payee('Beitragsservice ARD ZDF'),
          amount: -55_080,
          category: cat.rundfunk,
          memo: 'Quartalsbeitrag',
        });
        store.stamp(acc.giro).last_reconciled_at = momentOn(clock, rng, addDays(addMonths(monthOf(today), -1), 2), 18).toISOString();
      },
    },
  );
  return store.rec;
}

/** The first day `day` after `today` in the quarterly cycle starting `offset` months after `first`. */
function nextQuarterly(first: string, offset: number, day: number, today: string): string {
  let date = dayIn(addMonths(first, offset), day);
  while (date <= today) date = dayIn(addMonths(monthOf(date), 3), day);
  return date;
}
