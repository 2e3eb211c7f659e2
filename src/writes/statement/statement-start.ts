/**
 * A statement's rows dated before the budget knows the account: before its starting balance
 * (account-start.ts), or before the budget's first month. Imported, such rows move the budget's
 * first month back (YNAB makes every month between) and change Ready to Assign in every month
 * since, by their net (arriving uncategorized, an outflow is overspending Ready to Assign
 * covers), and put the account's balance off from its starting balance. import_statement holds
 * them apart (skipped, with why) unless include_before_start: true, and says so either way.
 */
import { monthOf } from '../../api/dates.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { accountStart } from './account-start.js';
import type { RowMatch } from './statement-match.js';
import { moneyOf } from '../pipeline/after-state.js';

/** Rows shown in the preview's before_start part at most. */
const LISTED = 10;

const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(5, 7)) - Number(from.slice(5, 7));

/**
 * Marks the new rows dated before the account's start or the budget's first month skipped
 * (unless `include`), and returns what the preview says of them; undefined when there are none.
 */
export function holdBeforeStart(
  ctx: PlanContext,
  accountId: string,
  onBudget: boolean,
  matches: RowMatch[],
  include: boolean,
): Record<string, unknown> | undefined {
  const start = accountStart(ctx.replica, accountId);
  // The budget's first month moves only for an account on budget.
  const firstMonth = onBudget ? (ctx.replica.summary.first_month ?? undefined) : undefined;
  const limit = [start, firstMonth].filter((d): d is string => !!d).sort()[1] ?? start ?? firstMonth;
  if (!limit) return undefined;
  const early = matches.filter((m) => m.status === 'new' && m.row.date < limit);
  if (!early.length) return undefined;
  const net = early.reduce((n, m) => n + m.row.amount, 0);
  const earliest = early.reduce((d, m) => (m.row.date < d ? m.row.date : d), limit);
  const money = ctx.shown.money;
  const moves = onBudget && firstMonth && monthOf(earliest) < firstMonth;
  const effect = [
    ...(moves
      ? [
          `the budget's first month would move from ${firstMonth.slice(0, 7)} to ${earliest.slice(0, 7)} (${monthsBetween(monthOf(earliest), firstMonth)} months added)`,
        ]
      : []),
    ...(onBudget ? [`Ready to Assign would change by ${money(net)} in every month from ${earliest.slice(0, 7)} on (their net, arriving uncategorized)`] : []),
    ...(start && earliest < start ? [`the account would hold ${money(net)} dated before its starting balance of ${start}`] : []),
  ].join('; ');
  if (!include)
    for (const m of early)
      Object.assign(m, {
        status: 'skipped',
        reason: `dated before ${start && m.row.date < start ? `the account's starting balance (${start})` : `the budget's first month (${firstMonth})`}: include_before_start: true imports it`,
      });
  return {
    count: early.length,
    ...moneyOf(ctx.shown, 'net', net),
    earliest,
    ...(start ? { account_start: start } : {}),
    ...(firstMonth ? { budget_first_month: firstMonth } : {}),
    imported: include,
    effect: `Imported, ${effect}.`,
    rows: early.slice(0, LISTED).map((m) => ({ line: m.row.line, date: m.row.date, payee: m.row.payee, ...moneyOf(ctx.shown, 'amount', m.row.amount) })),
  };
}
