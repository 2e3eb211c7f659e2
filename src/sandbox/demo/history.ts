/**
 * The month-by-month engine shared by the demo budgets. Each month's transactions are planned
 * (a scenario's fixed backbone plus everyday "fill" purchases), posted in date order, and money
 * is assigned. Each month is one `change()` (several months per change for very large demos,
 * since every change recomputes the derived figures, O(transactions)), and the store's clock
 * moves with the months, so knowledge values, `last_modified_on` and money movement times read
 * like a real history that ends at `now`.
 */
import { addDays, addMonths, daysBetween, daysInMonth, monthRange } from '../../api/dates.js';
import type { BudgetStore } from '../store/budget-store.js';
import { budgetMonth, type MonthBudget } from './budgeting.js';
import { RunningBudget } from './figures.js';
import type { Ledger } from './ledger.js';
import type { Random } from './random.js';

export interface MonthSlot {
  index: number;
  /** First day of the month. */
  month: string;
  /** Last day of the month, or today for the current month. */
  last: string;
  isCurrent: boolean;
}

/** One transaction to post: `records` is how many records it makes (2 for a transfer). */
export interface Planned {
  date: string;
  records: number;
  run: () => void;
  /** Posted after everything else of its day (a step that looks at the day's balances). */
  late?: boolean;
}

export interface Scenario {
  /** Creates groups, categories and accounts (inside the first month's change). */
  setup(): void;
  /** The month's fixed transactions and special events. */
  plan(slot: MonthSlot): Planned[];
  /** `count` everyday transactions of one record each, spread over the slot. */
  fill(slot: MonthSlot, count: number): Planned[];
  /** How the month's money is assigned (called after its transactions are posted; `running` holds where the month started). */
  budget(slot: MonthSlot, running: RunningBudget): MonthBudget;
  /** Record edits at the end of a month: closing an account, hiding a category, new goals. */
  endOfMonth?(slot: MonthSlot, running: RunningBudget): void;
  /** Final touches in the last change: scheduled transactions, pending imports, reconciliation. */
  finish(): void;
}

/** What every demo budget is built from. */
export interface BudgetEnv {
  seed: string | number;
  now: Date;
  userId: string;
}

export interface DemoClock {
  now: Date;
  today: string;
  set(time: Date): void;
}

export interface HistoryRun {
  store: BudgetStore;
  ledger: Ledger;
  rng: Random;
  clock: DemoClock;
  firstMonth: string;
  /** Total transaction records wanted; the backbone alone may exceed a very small one. */
  target: number;
}

/** A timestamp on `date` at about `hour` UTC, never after now. */
export function momentOn(clock: DemoClock, rng: Random, date: string, hour: number): Date {
  const t = new Date(`${date}T${String(hour).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}.000Z`);
  return t > clock.now ? clock.now : t;
}

/** The date of day `day` of a month, clamped to its last day. */
export function dayIn(month: string, day: number): string {
  const last = daysInMonth(Number(month.slice(0, 4)), Number(month.slice(5, 7)));
  return `${month.slice(0, 8)}${String(Math.min(day, last)).padStart(2, '0')}`;
}

/** Every date of the slot, in order. */
export function datesIn(slot: MonthSlot): string[] {
  const dates: string[] = [];
  for (let d = slot.month; d <= slot.last; d = addDays(d, 1)) dates.push(d);
  return dates;
}

/** Transactions per `change()` at most (about): small demos get one change per month. */
const PER_CHANGE = 20_000;

export function runHistory(h: HistoryRun, scenario: Scenario): void {
  const { store, rng, clock } = h;
  const months = monthRange(h.firstMonth, clock.today.slice(0, 8) + '01');
  const running = new RunningBudget();
  const progress: Progress = { backbone: 0, months: 0, total: months.length, byToday: 1 };
  const perChange = Math.max(1, Math.ceil(h.target / PER_CHANGE));
  for (let start = 0; start < months.length; start += perChange) {
    const chunk = months.slice(start, start + perChange);
    clock.set(momentOn(clock, rng, chunk[0]!, 7));
    store.change(() => {
      chunk.forEach((month, i) => runMonth(h, scenario, running, progress, month, start + i, start + i === months.length - 1));
    });
  }
}

interface Progress {
  /** Backbone records (bills, paychecks, transfers) of the months run so far, and how many months. */
  backbone: number;
  months: number;
  /** Months in the history, the current one included. */
  total: number;
  /** The share of the last month's backbone records dated on or before today's day of the month. */
  byToday: number;
}

function runMonth(h: HistoryRun, scenario: Scenario, running: RunningBudget, progress: Progress, month: string, index: number, isCurrent: boolean): void {
  const { store, ledger, rng, clock } = h;
  const slot: MonthSlot = { index, month, last: isCurrent ? clock.today : addDays(addMonths(month, 1), -1), isCurrent };
  if (index === 0) {
    scenario.setup();
    for (const t of store.rec.transactions.values()) ledger.absorb(t);
  }
  const items = scenario.plan(slot);
  const own = items.reduce((n, p) => n + p.records, 0);
  const ownCount = items.length;
  items.push(...scenario.fill(slot, fillQuota(h, slot, own, progress)));
  progress.backbone += own;
  progress.months += 1;
  const todayDay = clock.today.slice(8, 10);
  const early = items.slice(0, ownCount).reduce((n, p) => n + (p.date.slice(8, 10) <= todayDay ? p.records : 0), 0);
  progress.byToday = own > 0 ? early / own : 1;
  // Stable sort: same-day transactions keep their planned order (and creation sequence), late ones last.
  items.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : Number(a.late ?? false) - Number(b.late ?? false)));
  for (const p of items) p.run();
  budgetMonth(store, ledger, running, scenario.budget(slot, running), rng);
  running.close(store, month, ledger.flows(month));
  scenario.endOfMonth?.(slot, running);
  if (isCurrent) scenario.finish();
  // The change ends at the last month it covers: that is its last_modified_on.
  clock.set(isCurrent ? clock.now : momentOn(clock, rng, slot.last, 21));
}

/**
 * Everyday transactions for this month: its share, by days, of what the target leaves after the
 * backbone. The backbone still to come is estimated from the months so far: a full month's for
 * each month before the current one, and for the current one the share of a month's backbone that
 * falls by today's day of the month (its fixed bills cluster on the first days). A month of 14
 * days then holds about 14 days' purchases, not the rounding of the whole history. The last month
 * takes exactly the rest, so the total matches the target whenever the backbone fits in it.
 */
function fillQuota(h: HistoryRun, slot: MonthSlot, own: number, progress: Progress): number {
  const left = h.target - h.store.rec.transactions.size - own;
  if (slot.isCurrent) return Math.max(0, left);
  const perMonth = progress.months > 0 ? progress.backbone / progress.months : own;
  const fullMonthsAfter = progress.total - progress.months - 2;
  const days = daysBetween(slot.month, slot.last) + 1;
  const daysLeft = daysBetween(slot.month, h.clock.today) + 1;
  const fill = left - perMonth * (fullMonthsAfter + progress.byToday);
  return Math.max(0, Math.round((fill * days) / daysLeft));
}
