import { describe, expect, it } from 'vitest';
import { addDays, addMonths, addYears, monthOf } from '../../src/api/dates.js';
import { createDemoBudgets } from '../../src/sandbox/demo/index.js';
import { BudgetStore } from '../../src/sandbox/store/budget-store.js';
import { computeDerived } from '../../src/sandbox/store/derived.js';
import type { BudgetRec, TransactionRec } from '../../src/sandbox/store/records.js';
import * as V from '../../src/sandbox/store/views.js';

const NOW = new Date('2025-06-14T15:30:00.000Z');
const TODAY = '2025-06-14';
const OPTS = { seed: 'demo-test', now: NOW, userId: '5c1a0a4e-1f6b-4f6e-9a51-7f0c2c8e9b10' };

const [household, berlin] = createDemoBudgets(OPTS) as [BudgetRec, BudgetRec];

const live = <T extends { deleted: boolean }>(m: Map<string, T>) => [...m.values()].filter((x) => !x.deleted);
const userGroups = (b: BudgetRec) => live(b.category_groups).filter((g) => !g.internal);
const userCategories = (b: BudgetRec) => {
  const ids = new Set(userGroups(b).map((g) => g.id));
  return live(b.categories).filter((c) => ids.has(c.category_group_id));
};
const storeOf = (b: BudgetRec, now = NOW) => new BudgetStore(b, { clock: () => now, newId: () => 'unused', userId: OPTS.userId });
const accountNamed = (b: BudgetRec, name: string) => live(b.accounts).find((a) => a.name === name)!;

describe('demo budgets: determinism', () => {
  it('gives deep-equal budgets for the same seed and now', () => {
    expect(createDemoBudgets(OPTS)).toEqual([household, berlin]);
  });

  it('gives different ids for a different seed', () => {
    const [other] = createDemoBudgets({ ...OPTS, seed: 'another seed' });
    expect(other!.id).not.toBe(household.id);
    const ids = new Set([...household.accounts.keys(), ...household.transactions.keys()]);
    expect([...other!.accounts.keys(), ...other!.transactions.keys()].filter((id) => ids.has(id))).toEqual([]);
  });
});

describe('Demo Household', () => {
  const d = computeDerived(household, NOW);

  it('has two years of history ending now, in US format', () => {
    expect(household.name).toBe('Demo Household');
    expect(household.first_month).toBe(addMonths(monthOf(TODAY), -24));
    expect(household.last_modified_on).toBe(NOW.toISOString());
    expect(household.date_format).toEqual({ format: 'MM/DD/YYYY' });
    expect(household.currency_format?.iso_code).toBe('USD');
    expect(household.currency_format?.example_format).toBe('123,456.78');
  });

  it('has about 1,500 transactions by default and exactly the requested count otherwise', () => {
    expect(household.transactions.size).toBe(1500);
    const [bigger] = createDemoBudgets({ ...OPTS, transactions: 4000 });
    expect(bigger!.transactions.size).toBe(4000);
    expect(bigger!.name).toBe('Demo Household');
  });

  it('has every kind of account, a closed one at zero and an off-budget mortgage', () => {
    const types = live(household.accounts).map((a) => a.type);
    expect(types).toEqual(expect.arrayContaining(['checking', 'savings', 'cash', 'creditCard', 'lineOfCredit', 'mortgage']));
    const closed = live(household.accounts).filter((a) => a.closed);
    expect(closed).toHaveLength(1);
    expect(d.balances.get(closed[0]!.id)).toEqual({ balance: 0, cleared: 0, uncleared: 0 });
    const mortgage = live(household.accounts).find((a) => a.type === 'mortgage')!;
    expect(mortgage.on_budget).toBe(false);
    expect(d.balances.get(mortgage.id)!.balance).toBeLessThan(0);
    for (const map of [mortgage.debt_interest_rates, mortgage.debt_minimum_payments, mortgage.debt_escrow_amounts]) {
      expect(Object.keys(map ?? {}).length).toBeGreaterThan(0);
      for (const [date, value] of Object.entries(map!)) {
        expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(Number.isInteger(value)).toBe(true);
      }
    }
    expect(live(household.accounts).find((a) => a.type === 'lineOfCredit')!.on_budget).toBe(true);
  });

  it('has a linked checking account with imports pending from the last days', () => {
    const checking = accountNamed(household, 'Everyday Checking');
    expect(checking.direct_import_linked).toBe(true);
    expect(household.pending_imports.length).toBeGreaterThanOrEqual(2);
    for (const p of household.pending_imports) {
      expect(p.account_id).toBe(checking.id);
      expect(p.date >= addDays(TODAY, -3) && p.date <= addDays(TODAY, -1)).toBe(true);
    }
  });

  it('has 25+ categories in 6+ user groups, covering every goal type', () => {
    expect(userGroups(household).length).toBeGreaterThanOrEqual(6);
    const cats = userCategories(household);
    expect(cats.length).toBeGreaterThanOrEqual(25);
    const goals = cats.map((c) => c.goal).filter((g) => g !== null);
    expect(new Set(goals.map((g) => g.type))).toEqual(new Set(['TB', 'TBD', 'MF', 'NEED', 'DEBT']));
    expect(goals.some((g) => g.type === 'TBD' && g.target_date! > TODAY)).toBe(true);
    expect(goals.some((g) => g.type === 'NEED' && g.needs_whole_amount === true && g.cadence === 1)).toBe(true);
    expect(goals.some((g) => g.type === 'NEED' && g.needs_whole_amount === false)).toBe(true);
    expect(goals.some((g) => g.type === 'NEED' && g.cadence === 2 && g.day !== null && g.day >= 0 && g.day <= 6)).toBe(true);
    expect(goals.some((g) => g.type === 'NEED' && g.cadence === 13 && g.target_date !== null)).toBe(true);
    for (const g of goals) expect(g.creation_month >= household.first_month && g.creation_month <= monthOf(TODAY)).toBe(true);
    expect(cats.some((c) => c.goal === null)).toBe(true);
    expect(cats.filter((c) => c.hidden)).toHaveLength(1);
    expect(cats.filter((c) => c.note).length).toBeGreaterThanOrEqual(3);
  });

  it('pays the mortgage from checking, categorized to the DEBT category', () => {
    const mortgage = live(household.accounts).find((a) => a.type === 'mortgage')!;
    const debt = userCategories(household).find((c) => c.goal?.type === 'DEBT')!;
    const payments = live(household.transactions).filter((t) => t.transfer_account_id === mortgage.id);
    expect(payments.length).toBeGreaterThanOrEqual(20);
    for (const t of payments) expect(t.category_id).toBe(debt.id);
  });

  it('has splits whose lines sum to the parent', () => {
    const splits = live(household.transactions).filter((t) => t.subtransactions.length > 0);
    expect(splits.length).toBeGreaterThanOrEqual(10);
    expect(splits.some((t) => t.subtransactions.length >= 3)).toBe(true);
    expect(household.categories.has(household.split_category_id)).toBe(false);
    for (const t of splits) {
      expect(t.subtransactions.reduce((s, x) => s + x.amount, 0)).toBe(t.amount);
      expect(t.category_id).toBe(household.split_category_id);
    }
  });

  it('has transfer pairs that point at each other with opposite amounts', () => {
    const lines = new Map<string, { amount: number; transfer_transaction_id: string | null; parent: TransactionRec }>();
    for (const t of household.transactions.values()) for (const x of t.subtransactions) lines.set(x.id, { ...x, parent: t });
    let pairs = 0;
    for (const t of live(household.transactions)) {
      if (!t.transfer_transaction_id) continue;
      pairs += 1;
      const other = household.transactions.get(t.transfer_transaction_id);
      if (other) {
        expect(other.transfer_transaction_id).toBe(t.id);
        expect(other.transfer_account_id).toBe(t.account_id);
        expect(other.amount).toBe(-t.amount);
        expect(other.date).toBe(t.date);
      } else {
        const line = lines.get(t.transfer_transaction_id)!;
        expect(line.transfer_transaction_id).toBe(t.id);
        expect(line.amount).toBe(-t.amount);
        expect(line.parent.date).toBe(t.date);
      }
    }
    expect(pairs).toBeGreaterThan(150);
  });

  it('has no transaction in the future or older than five years', () => {
    for (const t of household.transactions.values()) {
      expect(t.date <= TODAY).toBe(true);
      expect(t.date >= addYears(TODAY, -5)).toBe(true);
      expect(Number.isInteger(t.amount)).toBe(true);
    }
  });

  it('has a realistic mix of statuses, flags, memos, imports and uncategorized ones', () => {
    const all = live(household.transactions);
    const count = (f: (t: TransactionRec) => boolean) => all.filter(f).length;
    expect(count((t) => t.cleared === 'uncleared')).toBeGreaterThan(0);
    expect(count((t) => t.cleared === 'reconciled')).toBeGreaterThan(500);
    expect(count((t) => !t.approved)).toBeGreaterThan(0);
    expect(all.filter((t) => !t.approved).every((t) => t.date >= addDays(TODAY, -10))).toBe(true);
    expect(all.filter((t) => t.cleared === 'uncleared').every((t) => t.date >= addDays(TODAY, -10))).toBe(true);
    expect(new Set(all.map((t) => t.flag_color).filter(Boolean)).size).toBeGreaterThanOrEqual(5);
    expect(count((t) => t.memo !== null)).toBeGreaterThan(all.length * 0.15);
    const imported = all.filter((t) => t.import_id !== null);
    expect(imported.length).toBeGreaterThanOrEqual(3);
    for (const t of imported) {
      expect(t.import_id).toMatch(/^YNAB:-?\d+:\d{4}-\d{2}-\d{2}:\d+$/);
      expect(t.import_id!.split(':')[1]).toBe(String(t.amount));
      expect(t.import_payee_name).not.toBeNull();
      expect(t.import_payee_name_original).not.toBeNull();
    }
    expect(new Set(imported.map((t) => `${t.account_id}|${t.import_id}`)).size).toBe(imported.length);
    const onBudget = new Set(
      live(household.accounts)
        .filter((a) => a.on_budget)
        .map((a) => a.id),
    );
    const uncategorized = all.filter((t) => onBudget.has(t.account_id) && t.category_id === null && !t.transfer_account_id && !t.subtransactions.length);
    expect(uncategorized.length).toBeGreaterThanOrEqual(2);
  });

  it('uses repeating payees, some with locations', () => {
    const uses = new Map<string, number>();
    for (const t of household.transactions.values()) if (t.payee_id) uses.set(t.payee_id, (uses.get(t.payee_id) ?? 0) + 1);
    const merchants = live(household.payees).filter((p) => p.transfer_account_id === null);
    expect(merchants.length).toBeGreaterThanOrEqual(40);
    expect([...uses.values()].filter((n) => n >= 20).length).toBeGreaterThanOrEqual(10);
    const locations = live(household.payee_locations);
    expect(locations.length).toBeGreaterThanOrEqual(5);
    for (const l of locations) {
      expect(household.payees.has(l.payee_id)).toBe(true);
      expect(l.latitude).toMatch(/^-?\d+\.\d+$/);
      expect(l.longitude).toMatch(/^-?\d+\.\d+$/);
    }
  });

  it('assigns money at the start of each month and on the second payday, with times that read like history', () => {
    const assigns = household.money_movement_groups.filter((g) => g.note === null);
    expect(new Set(assigns.map((g) => g.month)).size).toBe(25);
    const perMonth = new Map<string, string[]>();
    for (const g of household.money_movement_groups) {
      expect(g.group_created_at.slice(0, 7)).toBe(g.month.slice(0, 7));
      expect(g.group_created_at <= NOW.toISOString()).toBe(true);
      expect(g.performed_by_user_id).toBe(OPTS.userId);
    }
    for (const g of assigns) perMonth.set(g.month, [...(perMonth.get(g.month) ?? []), g.group_created_at.slice(8, 10)]);
    for (const [month, days] of perMonth) {
      expect(days.length, month).toBeLessThanOrEqual(2);
      expect(days[0], month).toBe('01');
      if (days[1]) expect(days[1], month).toBe('16');
    }
    const groups = new Set(household.money_movement_groups.map((g) => g.id));
    for (const m of household.money_movements) expect(groups.has(m.money_movement_group_id!)).toBe(true);
    expect(new Set(live(household.transactions).map((t) => t.knowledge)).size).toBeGreaterThan(20);
  });

  it('budgets from targets and habits, not from what was spent after the fact', () => {
    // An everyday category assigned exactly what it then spent would be a household budgeting in
    // hindsight; with targets and habits decided at the start of the month that is rare. A month
    // whose overspending was covered by moving money ends at exactly zero by design (the move is
    // part of `budgeted`), so it is not counted as hindsight: the household reacted to it.
    const everyday = userCategories(household).filter((c) => ['Groceries', 'Fuel', 'Dining Out', 'Household Supplies', 'Pet Care'].includes(c.name));
    const covered = new Set(household.money_movements.filter((m) => m.note === 'Covering overspending').map((m) => `${m.month}/${m.to_category_id}`));
    let months = 0;
    let exact = 0;
    for (const m of d.months.filter((x) => x.month < d.currentMonth)) {
      for (const c of everyday) {
        const f = m.categories.get(c.id)!;
        if (f.activity === 0 || covered.has(`${m.month}/${c.id}`)) continue;
        months += 1;
        if (f.budgeted === -f.activity) exact += 1;
      }
    }
    expect(months).toBeGreaterThan(70);
    expect(exact / months).toBeLessThan(0.05);
  });

  it('has targets close to what the household usually spends', () => {
    // Everyday spending is noisy at a few purchases a month: each target within a factor of two
    // of the last year's average (for categories spending $30+ a month: below that a category sees
    // a purchase or two a month and one large receipt moves its year), all of them together within 20%.
    const past = d.months.filter((m) => m.month < d.currentMonth).slice(-12);
    let targets = 0;
    let spent = 0;
    for (const c of userCategories(household)) {
      const g = c.goal;
      if (!g || !['NEED', 'MF'].includes(g.type) || g.cadence === 13) continue;
      const monthly = g.cadence === 2 ? (g.target * 52) / 12 : g.target;
      const average = past.reduce((sum, m) => sum - m.categories.get(c.id)!.activity, 0) / past.length;
      if (average < 30_000) continue;
      expect(monthly / average, c.name).toBeGreaterThan(0.5);
      expect(monthly / average, c.name).toBeLessThan(2);
      targets += monthly;
      spent += average;
    }
    expect(Math.abs(targets / spent - 1)).toBeLessThan(0.2);
  });

  it('has 8+ scheduled transactions, all due today or later', () => {
    const scheduled = live(household.scheduled_transactions);
    expect(scheduled.length).toBeGreaterThanOrEqual(8);
    const freqs = new Set(scheduled.map((s) => s.frequency));
    for (const f of ['never', 'monthly', 'yearly', 'twiceAMonth', 'every3Months', 'twiceAYear']) expect(freqs.has(f as never)).toBe(true);
    for (const s of scheduled) {
      expect(d.dateNext.get(s.id)! >= TODAY).toBe(true);
      expect(s.date_first <= addYears(TODAY, 5)).toBe(true);
      if (s.frequency === 'never') {
        expect(s.date_first > TODAY).toBe(true);
        expect(monthOf(s.date_first)).toBe(addMonths(monthOf(TODAY), 1));
      }
    }
    const savings = accountNamed(household, 'Rainy Day Savings');
    expect(scheduled.some((s) => s.payee_id === savings.transfer_payee_id && s.transfer_account_id === savings.id && s.category_id === null)).toBe(true);
    const split = scheduled.find((s) => s.subtransactions.length > 0)!;
    expect(split.subtransactions.reduce((sum, x) => sum + x.amount, 0)).toBe(split.amount);
  });

  it('reads well through the views, and a store opened at now sees nothing new', () => {
    const store = storeOf(household);
    const knowledge = household.knowledge;
    store.derived();
    expect(household.knowledge).toBe(knowledge);
    const split = live(household.transactions).find((t) => t.subtransactions.length > 0)!;
    const detail = V.transactionDetail(store, split);
    expect(detail.category_name).toBe('Split');
    expect(detail.subtransactions.reduce((s, x) => s + x.amount, 0)).toBe(detail.amount);
    const checking = V.account(store, accountNamed(household, 'Everyday Checking'));
    expect(checking.balance_formatted).toMatch(/^-?\$[\d,]+\.\d{2}$/);
    const rent = V.categoryBase(
      store,
      userCategories(household).find((c) => c.name === 'Rent')!,
    );
    expect(rent.goal_type).toBe('NEED');
    expect(rent.goal_needs_whole_amount).toBe(true);
    for (const s of live(household.scheduled_transactions)) expect(V.scheduledDetail(store, s).date_next >= TODAY).toBe(true);
  });
});

describe('demo households that look real, for every seed', () => {
  const CASES = [
    ['demo-test', '2025-06-14T15:30:00.000Z'],
    [1, '2024-02-29T23:59:59.000Z'],
    ['x', '2026-01-01T00:00:01.000Z'],
    [42, '2025-12-31T12:00:00.000Z'],
    ['sandbox', '2026-11-14T12:00:00.000Z'],
    // A week after a yearly bill's due date: the target now shows next year's, the month paid this one.
    ['after-due', '2026-11-23T12:00:00.000Z'],
  ] as const;
  const built = CASES.map(([seed, now]) => {
    const [h, berlin] = createDemoBudgets({ ...OPTS, seed, now: new Date(now) });
    return { name: `${seed} ${now}`, h: h!, berlin: berlin!, dh: computeDerived(h!, new Date(now)), db: computeDerived(berlin!, new Date(now)) };
  });
  const pastMonths = (d: ReturnType<typeof computeDerived>) => d.months.filter((m) => m.month < d.currentMonth);
  const userIds = (b: BudgetRec) => new Set(userCategories(b).map((c) => c.id));
  let partialPayments = 0;

  it('works Ready to Assign down to about zero, sometimes leaving a little', () => {
    for (const { name, h, berlin, dh, db } of built) {
      for (const [b, d, keep] of [
        [h, dh, 150_000],
        [berlin, db, 40_000],
      ] as const) {
        const past = pastMonths(d);
        for (const m of past) {
          expect(m.to_be_budgeted, `${name} ${b.name} ${m.month}`).toBeGreaterThanOrEqual(0);
          expect(m.to_be_budgeted, `${name} ${b.name} ${m.month}`).toBeLessThanOrEqual(keep + 10_000);
        }
        expect(past.filter((m) => m.to_be_budgeted > 0).length, `${name} ${b.name}`).toBeGreaterThanOrEqual(past.length / 3);
      }
    }
  });

  it('covers some overspending by moving money and leaves some overspent into the next month', () => {
    for (const { name, h, dh } of built) {
      const ids = userIds(h);
      const covering = h.money_movements.filter(
        (m) => m.from_category_id && m.to_category_id && m.note === 'Covering overspending' && m.month < dh.currentMonth,
      );
      expect(covering.length, name).toBeGreaterThan(5);
      for (const m of covering) expect(ids.has(m.from_category_id!) && ids.has(m.to_category_id!), name).toBe(true);
      const past = pastMonths(dh);
      const left = past.filter((m) => [...m.categories].some(([id, f]) => ids.has(id) && f.balance < 0));
      expect(left.length, name).toBeGreaterThan(0);
      expect(left.length, name).toBeLessThan(past.length);
      for (const m of left) {
        const next = dh.monthIndex.get(addMonths(m.month, 1))!;
        for (const [id, f] of m.categories) if (ids.has(id) && f.balance < 0) expect(next.categories.get(id)!.carry).toBe(0);
      }
    }
  });

  it('pays the card in full most months, carries a balance sometimes, and keeps its payment category funded', () => {
    for (const { name, h, dh } of built) {
      const visa = accountNamed(h, 'Visa Rewards');
      const payment = live(h.categories).find((c) => c.linked_account_id === visa.id)!;
      const txns = live(h.transactions).filter((t) => t.account_id === visa.id);
      let full = 0;
      let months = 0;
      for (const m of pastMonths(dh)) {
        const debtAtStart = -txns.filter((t) => t.date < m.month).reduce((sum, t) => sum + t.amount, 0);
        const paid = txns.filter((t) => monthOf(t.date) === m.month && t.transfer_account_id && t.amount > 0).reduce((sum, t) => sum + t.amount, 0);
        if (debtAtStart > 0) {
          months += 1;
          if (paid === debtAtStart) full += 1;
          else partialPayments += 1;
        }
        const end = m.categories.get(payment.id)!.balance;
        const debtAtEnd = -txns.filter((t) => monthOf(t.date) <= m.month).reduce((sum, t) => sum + t.amount, 0);
        expect(end, `${name} ${m.month}`).toBeGreaterThanOrEqual(0);
        // What the payment category does not cover is the month's credit overspending left: a few hundred
        // dollars at most ($600; a new budget's first month, before habits are known, comes closest).
        expect(debtAtEnd - end, `${name} ${m.month}`).toBeLessThan(600_000);
        expect(debtAtEnd - end, `${name} ${m.month}`).toBeGreaterThanOrEqual(0);
      }
      expect(full / months, name).toBeGreaterThan(0.6);
    }
    expect(partialPayments).toBeGreaterThan(0);
  });

  it('saves for yearly bills month by month, so each is paid from money set aside, never overspent', () => {
    let bills = 0;
    for (const { name, h, dh } of built) {
      const yearly = userCategories(h).filter((c) => c.goal?.type === 'NEED' && c.goal.cadence === 13);
      expect(yearly.length, name).toBeGreaterThan(1);
      for (const c of yearly) {
        for (const m of dh.months.filter((x) => x.month <= dh.currentMonth)) {
          const f = m.categories.get(c.id)!;
          expect(f.balance, `${name} ${c.name} ${m.month}`).toBeGreaterThanOrEqual(0);
          // A month that pays a bill of the whole target had it (nearly) all set aside beforehand
          // (but for the budget's first month: nothing could be set aside before it).
          if (-f.activity >= c.goal!.target && m.month > dh.months[0]!.month) {
            bills += 1;
            expect(f.carry, `${name} ${c.name} ${m.month}`).toBeGreaterThan(c.goal!.target / 2);
          }
        }
      }
    }
    expect(bills).toBeGreaterThan(3);
  });

  it('fills the current month by the days gone, not with what the history had left over', () => {
    // Transactions a day this month against a past month's: about the same once a week has gone
    // (fixed bills cluster on the first days, so the first days run a little higher).
    for (const { name, h, dh } of built) {
      const day = Number(dh.today.slice(8, 10));
      if (day < 7) continue;
      const txns = live(h.transactions);
      const current = txns.filter((t) => t.date >= dh.currentMonth).length / day;
      const pastList = txns.filter((t) => t.date < dh.currentMonth);
      const pastDays = new Set(pastList.map((t) => t.date.slice(0, 7))).size * 30.44;
      expect(current / (pastList.length / pastDays), name).toBeLessThan(1.3);
    }
  });

  it('has a line of credit whose payments reduce it, its payment category funded', () => {
    let checked = 0;
    for (const { name, h, dh } of built) {
      const loc = accountNamed(h, 'Home Equity Line');
      const payment = live(h.categories).find((c) => c.linked_account_id === loc.id)!;
      const txns = live(h.transactions).filter((t) => t.account_id === loc.id);
      const draws = txns.filter((t) => t.amount < 0);
      if (!draws.length) continue; // history shorter than the draw
      checked += 1;
      expect(draws.length, name).toBe(1);
      let owed = Infinity;
      for (const m of dh.months.filter((x) => x.month >= monthOf(draws[0]!.date))) {
        const debt = -txns.filter((t) => monthOf(t.date) <= m.month).reduce((sum, t) => sum + t.amount, 0);
        expect(debt, `${name} ${m.month}`).toBeLessThanOrEqual(owed);
        expect(m.categories.get(payment.id)!.balance, `${name} ${m.month}`).toBe(debt);
        owed = debt;
      }
      expect(owed, name).toBeLessThan(-draws[0]!.amount);
    }
    // Most seeds' histories reach the draw: the rule is checked, not skipped.
    expect(checked, 'households whose line of credit was drawn').toBeGreaterThanOrEqual(Math.ceil(built.length / 2));
  });

  it('never ends a month with a cash account overdrawn, for seeds 0 to 30', () => {
    // Issue 24: with seed 6 on 2026-11-23, Everyday Checking ended the month at -2,735.46 while
    // savings held $24,000. Seeds 0..30, each at one of three moments (seed 6 at that one).
    const NOWS = ['2026-11-23T12:00:00.000Z', '2025-06-14T15:30:00.000Z', '2026-01-01T00:00:01.000Z'];
    const overdrawn: string[] = [];
    for (let seed = 0; seed <= 30; seed++) {
      const now = NOWS[seed % NOWS.length]!;
      for (const b of createDemoBudgets({ ...OPTS, seed, now: new Date(now) })) {
        for (const a of live(b.accounts).filter((x) => ['checking', 'savings', 'cash'].includes(x.type))) {
          const byMonth = new Map<string, number>();
          for (const t of live(b.transactions)) if (t.account_id === a.id) byMonth.set(monthOf(t.date), (byMonth.get(monthOf(t.date)) ?? 0) + t.amount);
          let balance = 0;
          // Month by month to the current one (whose end is today).
          for (const month of [...byMonth.keys()].sort()) {
            balance += byMonth.get(month)!;
            if (balance < 0) overdrawn.push(`seed ${seed} at ${now}: ${b.name} ${a.name} ended ${month} at ${balance / 1000}`);
          }
        }
      }
    }
    expect(overdrawn).toEqual([]);
  });

  it('never shows absurd figures in past months', () => {
    for (const { name, h, berlin, dh, db } of built) {
      for (const [b, d] of [
        [h, dh],
        [berlin, db],
      ] as const) {
        const ids = userIds(b);
        for (const [i, m] of pastMonths(d).entries()) {
          const where = `${name} ${b.name} ${m.month}`;
          expect(m.income, where).toBeGreaterThan(0);
          expect(m.activity, where).toBeLessThan(0);
          if (i >= 2) expect(m.age_of_money, where).toBeGreaterThan(0);
          expect(m.age_of_money ?? 0, where).toBeLessThan(400);
          for (const [id, f] of m.categories) {
            if (!ids.has(id)) continue;
            expect(f.balance, `${where} ${b.categories.get(id)!.name}`).toBeGreaterThan(-600_000);
            expect(f.budgeted, `${where} ${b.categories.get(id)!.name}`).toBeGreaterThan(-20_000_000);
          }
        }
      }
    }
  });
});

describe('Haushalt Berlin', () => {
  const d = computeDerived(berlin, NOW);

  it('is a small EUR budget in German format', () => {
    expect(berlin.currency_format).toEqual({
      iso_code: 'EUR',
      example_format: '123.456,78',
      decimal_digits: 2,
      decimal_separator: ',',
      symbol_first: false,
      group_separator: '.',
      currency_symbol: '€',
      display_symbol: true,
    });
    expect(berlin.date_format).toEqual({ format: 'DD.MM.YYYY' });
    expect(berlin.first_month).toBe(addMonths(monthOf(TODAY), -5));
    expect(live(berlin.accounts).length).toBeGreaterThanOrEqual(2);
    expect(live(berlin.accounts).length).toBeLessThanOrEqual(3);
    expect(userGroups(berlin)).toHaveLength(3);
    expect(userCategories(berlin).length).toBeGreaterThanOrEqual(9);
    expect(userCategories(berlin).filter((c) => c.goal).length).toBeGreaterThanOrEqual(2);
    expect(berlin.transactions.size).toBe(150);
    expect(live(berlin.scheduled_transactions)).toHaveLength(2);
  });

  it('has a split and a transfer, nothing in the future, and plausible figures', () => {
    const all = live(berlin.transactions);
    expect(all.some((t) => t.subtransactions.length >= 2)).toBe(true);
    expect(all.some((t) => t.transfer_transaction_id !== null)).toBe(true);
    expect(all.every((t) => t.date <= TODAY && t.date >= berlin.first_month)).toBe(true);
    const rta = d.monthIndex.get(d.currentMonth)!.to_be_budgeted;
    expect(rta).toBeGreaterThan(-1_000_000);
    expect(rta).toBeLessThan(5_000_000);
    for (const s of live(berlin.scheduled_transactions)) expect(d.dateNext.get(s.id)! >= TODAY).toBe(true);
  });

  it('formats money the German way in the views', () => {
    const store = storeOf(berlin);
    const giro = V.account(store, accountNamed(berlin, 'Girokonto'));
    expect(giro.balance_formatted).toMatch(/^-?[\d.]+,\d{2}€$/);
  });
});

describe('demo budgets: scale', () => {
  it('keeps a large demo (several months per change) plausible month by month', () => {
    const [big] = createDemoBudgets({ ...OPTS, transactions: 45_000 });
    expect(big!.transactions.size).toBe(45_000);
    expect(big!.knowledge).toBeLessThan(25);
    const d = computeDerived(big!, NOW);
    for (const m of d.months.filter((x) => x.month < d.currentMonth)) {
      expect(m.to_be_budgeted, m.month).toBeGreaterThan(-1_000_000);
      expect(m.to_be_budgeted, m.month).toBeLessThan(5_000_000);
    }
    expect(
      live(big!.accounts)
        .filter((a) => a.closed)
        .every((a) => d.balances.get(a.id)!.balance === 0),
    ).toBe(true);
  });

  it('generates 200,000 transactions', () => {
    const started = performance.now();
    const [big] = createDemoBudgets({ ...OPTS, transactions: 200_000 });
    const ms = Math.round(performance.now() - started);
    console.log(`demo: 200,000 transactions generated in ${ms} ms`);
    expect(big!.transactions.size).toBe(200_000);
  });
});
