/**
 * forecast's answer: the headline figures (today, the end, the lowest point, the first date below
 * zero, the next income, why it is payday, and the cash until then), the balance at each month's end (and its lowest),
 * each day of the first 60 whose balance changes, and the assumptions as a list: how the balances
 * start, which recurring items at which amounts and dates, what schedules and assigned money count,
 * and what is left out. Compact by default (milliunits in rows, the recurring items as one line
 * each); full detail adds each account's month-end balance and each item as fields.
 */
import { addDays, type IsoDate } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import type { Detected } from '../recurring/recurring-detect.js';
import { isIrregularIncome, type FlowEvent, type Included } from './forecast-events.js';
import { DAILY_DAYS, type Simulation } from './forecast-sim.js';
import { keyedMoney, present, rowMoney, textByKey } from '../core/format.js';
import type { InsightContext, InsightResult } from '../core/types.js';

export interface Forecasted {
  accounts: string[];
  until: IsoDate;
  include: ReadonlySet<Included>;
  main: string;
  sim: Simulation;
  events: FlowEvent[];
  used: Detected[];
  covered: Detected[];
  full: boolean;
}

/** Recurring items listed in compact detail (the rest are counted, and said to be). */
const COMPACT_ITEMS = 3;
/** Occurrences listed: the largest few in compact detail, in date order in full. */
const COMPACT_MOVES = 4;
const FULL_MOVES = 300;
/**
 * What a compact answer may take (the rest of the 2 KB is the envelope: the data boundary,
 * freshness, a notice): past it, the daily points stop earlier, and the answer says where.
 */
const COMPACT_CHARS = 1560;

function assumptions(ctx: InsightContext, f: Forecasted): unknown[] {
  const { view } = ctx;
  const fmt = (m: number) => formatMilliunits(m, ctx.format);
  const payee = (id: string | null) => view.payeeName(id) ?? 'no payee';
  const list: unknown[] = ['From balances today (uncleared in); outflows first each day.'];
  const dates = (r: Detected) => f.events.filter((e) => e.source === 'recurring' && e.payee_id === r.payee_id && e.account_id === r.account_id).length;
  if (f.include.has('scheduled')) {
    list.push(`Scheduled: ${f.events.filter((e) => e.source === 'scheduled').length} dates.`);
    const late = f.events.filter((e) => e.overdue);
    if (late.length)
      list.push(
        `Overdue scheduled: ${new Set(late.map((e) => `${e.scheduled_id}|${e.overdue}`)).size} past their date and not entered (${fmt(late.reduce((s, e) => s + e.amount, 0))}), counted today; oldest due ${late.map((e) => e.overdue!).sort()[0]}.`,
      );
  }
  if (f.include.has('recurring')) {
    // The items that fall in the horizon, the largest first.
    const used = f.used.filter((r) => dates(r) > 0).sort((a, b) => Math.abs(b.typical) * dates(b) - Math.abs(a.typical) * dates(a));
    const shown = f.full ? used : used.slice(0, COMPACT_ITEMS);
    const items = shown.map((r) =>
      f.full
        ? present({
            payee_name: payee(r.payee_id),
            account_name: view.accountName(r.account_id),
            cadence: r.cadence,
            ...ctx.money('amount', r.typical),
            next_date: r.next_date,
            dates: dates(r),
          })
        : `${payee(r.payee_id)} ${fmt(r.typical)} ${r.cadence}`,
    );
    const more = used.length - shown.length;
    list.push({ recurring: items, ...(more ? { more } : {}), rule: 'as recurring finds them; due and not seen: today' });
    const once = [...new Set(f.covered.map((r) => payee(r.payee_id)))];
    if (once.length) list.push(f.full ? `Counted once, as scheduled: ${once.join(', ')}.` : `${once.length} also scheduled: counted once.`);
  }
  if (f.include.has('assigned')) {
    const total = f.events.filter((e) => e.source === 'assigned').reduce((s, e) => s + e.amount, 0);
    list.push(
      `Assigned money as spending (${fmt(total)}): this month's unspent today, later months' on the 1st, less their scheduled and recurring; from ${view.accountName(f.main)}; no card payments.`,
    );
  } else list.push('Not counted: other spending (include "assigned").');
  const varying = f.used.filter(isIrregularIncome);
  if (varying.length) {
    // Compact names them; full adds the usual amount and cadence (a 24-month compact answer keeps to 2 KB).
    const named = varying.map((r) => (f.full ? `${payee(r.payee_id)} (about ${fmt(r.typical)} ${r.cadence})` : payee(r.payee_id))).join(', ');
    list.push(
      f.include.has('irregular_income')
        ? `Income that varies, counted at its usual amount (today when due), never as payday: ${named}.`
        : `${f.full ? 'Not counted before it arrives, income' : 'Income'} that varies: ${named} (include "irregular_income").`,
    );
  }
  return list;
}

/** Why the next income is payday: its schedule, or the steady cadence and amount of its history. */
function paydayWhy(ctx: InsightContext, f: Forecasted, e: FlowEvent): string {
  const fmt = (m: number) => formatMilliunits(m, ctx.format);
  if (e.source === 'scheduled') {
    const s = e.scheduled_id ? ctx.view.replica.scheduled.get(e.scheduled_id) : undefined;
    return `scheduled${s ? ` ${s.frequency}` : ''}${f.full ? `, ${fmt(e.amount)}` : ''}`;
  }
  const item = f.used.find((r) => r.payee_id === e.payee_id && r.account_id === e.account_id);
  if (!item) return 'a regular income';
  // Compact: the amount is beside it (a 24-month compact answer keeps to 2 KB).
  if (!f.full) return `${item.cadence}, steady (within 2%)`;
  return `${item.cadence} at a steady ${fmt(item.typical)} (within 2%) in the history: the last ${item.count} about ${item.interval_days} days apart`;
}

export function forecastAnswer(ctx: InsightContext, f: Forecasted): InsightResult {
  const { view, today } = ctx;
  const { sim, full } = f;
  const fig = rowMoney(ctx.money, full);
  const dailyUntil = addDays(today, DAILY_DAYS);
  const income = sim.nextIncome;
  const days = sim.days.filter((d) => d.date <= dailyUntil);
  const dayMap: Record<string, number> = Object.fromEntries(days.map((d) => [d.date, d.balance]));
  const said = assumptions(ctx, f);
  const moved = moves(ctx, f);
  const structured: Record<string, unknown> = {
    ...(full ? { from: today } : {}),
    until: f.until,
    accounts: f.accounts.map((id) => view.accountName(id)),
    ...ctx.money('balance_today', sim.start),
    ...(full ? ctx.money('balance_at_end', sim.end) : {}),
    ...lowestOf(ctx, sim, full),
    ...moved,
    // Said even when it does not happen: "not below zero" is the answer to "will we make it".
    below_zero: sim.belowZero
      ? { date: sim.belowZero.date, account_name: view.accountName(sim.belowZero.account_id), ...ctx.money('balance', sim.belowZero.balance) }
      : null,
    next_income: income
      ? {
          date: income.date,
          payee_name: view.payeeName(income.payee_id),
          ...ctx.money('amount', income.amount),
          why: paydayWhy(ctx, f, income),
          // The least the chosen accounts hold together from today until it arrives.
          ...ctx.money('available_until_then', income.lowest.balance),
        }
      : null,
    // Compact: one member per month and per day, its balance as text in the budget's currency
    // (textByKey: a 24-month horizon's numbers and texts both would not fit 2 KB); full: rows.
    ...(full
      ? {
          months: sim.months.map((m) =>
            present({
              month: m.month,
              ...fig('end', m.end),
              ...fig('low', m.low),
              // Each account's end balance by name (more than one chosen), the texts beside under the same names.
              ...(f.accounts.length > 1
                ? keyedMoney(ctx.format, 'balances', Object.fromEntries([...m.accounts].map(([id, b]) => [view.accountName(id) ?? id, b])))
                : {}),
            }),
          ),
          days: days.map((d) => ({ date: d.date, ...ctx.money('balance', d.balance) })),
        }
      : { month_end_balances_formatted: textByKey(ctx.format, Object.fromEntries(sim.months.map((m) => [m.month.slice(0, 7), m.end]))) }),
    assumptions: said,
  };
  if (!full) fitDays(ctx, structured, dayMap, said, moved.largest_moves ?? []);
  return { structured };
}

/**
 * The lowest point: `lowest` at a day's end (what the day list shows, and what "lowest balance"
 * means to a person: read first, it must not be the other), and, when lower, the low within a day
 * (a day's outflows counted before its inflows) under a name that says so.
 */
function lowestOf(ctx: InsightContext, sim: Simulation, full: boolean): Record<string, unknown> {
  const fig = rowMoney(ctx.money, full);
  const same = sim.lowest.balance === sim.lowestDayEnd.balance;
  return {
    lowest: { date: sim.lowestDayEnd.date, ...ctx.money('balance', sim.lowestDayEnd.balance) },
    ...(same ? {} : { lowest_within_day: { date: sim.lowest.date, ...fig('balance', sim.lowest.balance) } }),
  };
}

/**
 * What moves the chosen accounts: each occurrence's date, payee (or category, for assigned money)
 * and amount. Full: every one in date order. Compact: the largest few, one per payee (a payday
 * repeats), as [date, name, amount formatted].
 */
function moves(ctx: InsightContext, f: Forecasted): { largest_moves?: unknown[][]; moves?: unknown[]; moves_count: number; moves_more?: string } {
  const { view } = ctx;
  const inHorizon = f.events.filter((e) => e.date <= f.until);
  const name = (e: FlowEvent) =>
    e.payee_id
      ? (view.payeeName(e.payee_id) ?? 'no payee')
      : `assigned: ${(e.category_id && view.replica.categories.get(e.category_id)?.name) || 'no category'}`;
  if (!f.full) {
    const seen = new Set<string>();
    const largest = [...inHorizon]
      .sort((a, b) => Math.abs(b.amount) - Math.abs(a.amount) || (a.date < b.date ? -1 : 1))
      .filter((e) => !seen.has(name(e)) && !!seen.add(name(e)))
      .slice(0, COMPACT_MOVES);
    return { largest_moves: largest.map((e) => [e.date, name(e), formatMilliunits(e.amount, ctx.format)]), moves_count: inHorizon.length };
  }
  return {
    moves: inHorizon.slice(0, FULL_MOVES).map((e) =>
      present({
        date: e.date,
        name: name(e),
        account_name: f.accounts.length > 1 ? view.accountName(e.account_id) : null,
        ...ctx.money('amount', e.amount),
        source: e.source,
        due: e.overdue ?? null,
      }),
    ),
    moves_count: inHorizon.length,
    // Past the first FULL_MOVES: said, not dropped silently.
    ...(inHorizon.length > FULL_MOVES ? { moves_more: `${inHorizon.length - FULL_MOVES} later ones not listed; a shorter horizon lists them` } : {}),
  };
}

/**
 * Compact past its share (a long horizon's months take room): the daily points leave from the
 * last, then the largest moves from the smallest (one stays), then the recurring items named (all
 * are counted, and `more` says how many are not named) and the rule they follow, then the largest moves and the low within a day.
 */
function fitDays(ctx: InsightContext, structured: Record<string, unknown>, days: Record<string, number>, said: unknown[], moves: unknown[]): void {
  // Each day's balance as text: written again after each cut.
  const write = () => (structured.day_balances_formatted = textByKey(ctx.format, days));
  write();
  const over = () => JSON.stringify(structured).length > COMPACT_CHARS;
  const dates = Object.keys(days);
  let cut = 0;
  while (dates.length > cut && over()) {
    delete days[dates[dates.length - ++cut]!];
    write();
    structured.days_through = dates[dates.length - cut - 1] ?? 'none: detail "full" has them';
  }
  if (!Object.keys(days).length) delete structured.day_balances_formatted;
  while (moves.length > 1 && over()) moves.pop();
  const recurring = said.find((a): a is { recurring: unknown[]; more?: number; rule?: string } => typeof a === 'object' && !!a && 'recurring' in a);
  while (recurring && recurring.recurring.length > 0 && over()) {
    recurring.recurring.pop();
    recurring.more = (recurring.more ?? 0) + 1;
  }
  if (recurring && over()) delete recurring.rule;
  if (over()) delete structured.largest_moves;
  // A long horizon's month ends, each with its text, leave no room for the within-day low (full has it).
  if (over()) delete structured.lowest_within_day;
}
