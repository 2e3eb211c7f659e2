/**
 * The answers of hosts without the Events extension (Claude reads resources and calls tools): the
 * `alerts` tool's "what changed since I last asked", with the alert settings it sets, and the
 * alerts resource's read of the same (a cursor in its URI). Both read the occurrence logs
 * events/poll reads, a page at a time, and neither skips one (issue 57): a first call shows every
 * occurrence the log keeps, each saying whether it still holds. The tool's cursor is kept per user
 * and budget (settings.ts) unless one is given; the resource's reader keeps its own.
 */
import { logStart, pageAfter, seqOf, type LogState, type Occurrence } from './log.js';
import type { EventsService } from './service.js';
import { ArgumentError } from '../shared/argument-error.js';
import { SettingsSchema, type AlertSettings } from './settings.js';

/** What is wrong with a settings change (null removes a setting), said so it can be fixed; else undefined. */
function settingsProblem(changes: Record<string, unknown>): string | undefined {
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
  const parsed = SettingsSchema.safeParse(given);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `settings.${issue.path.join('.')}` : 'settings';
  return `${where}: ${issue.message}. Settings are types, min_milliunits, quiet_hours {from, to}, digest_day (1 = Monday … 7), digest_hour, time_zone (IANA).`;
}

/** At most this many alerts in one answer (the rest: call again with the cursor it gives). */
export const ALERTS_PAGE = 30;

export interface AlertsArgs {
  cursor?: string;
  settings?: Record<string, unknown>;
}

/**
 * An occurrence as an answer row: what it is, when, whether its condition still holds, and its
 * payload's fields (without the per-payload notice). `still_open`, not `open`: the digest's
 * payload has an `open` of its own (the open alerts by type).
 */
export function alertRow(o: Occurrence, open: ReadonlySet<string>): Record<string, unknown> {
  const { data_notice: _notice, budget_id: _budget, ...data } = o.data;
  return { event_id: o.eventId, type: o.name, at: o.timestamp, still_open: open.has(o.eventId), ...data };
}

const shown = (s: AlertSettings) => (o: Occurrence) =>
  (!s.types || s.types.includes(o.name)) && (s.min_milliunits === undefined || typeof o.data.amount !== 'number' || o.data.amount >= s.min_milliunits);

const FIRST = "first call: every alert the budget's history keeps (its last 500), oldest first; still_open says whether it holds now";

/**
 * One page of alerts after `since`, the alerts tool's and the resource's alike. Without a cursor
 * (a first call), or with one of another log, from the oldest occurrence kept: what fired before
 * the first call is shown, open conditions and one-time events (a review queue that grew, then
 * shrank) alike. The cursor returned is after the last alert shown, never past one it did not
 * show; `more` says how many are left and how to get them.
 */
function alertsPage(state: LogState, since: string | undefined, settings: AlertSettings, next: (cursor: string) => string) {
  const first = since === undefined;
  const foreign = !first && seqOf(state, since) === undefined;
  const page = pageAfter(state, first || foreign ? logStart(state) : since, shown(settings), ALERTS_PAGE);
  const open = new Set(Object.values(state.open));
  const rows = page.events.map((o) => alertRow(o, open));
  const answer = {
    alerts: rows,
    count: rows.length,
    cursor: page.cursor,
    ...(first ? { since: FIRST } : {}),
    ...(page.truncated || foreign
      ? {
          truncated: "older alerts were dropped from the history (it keeps the last 500), or the cursor is not this budget's: these start from the oldest kept",
        }
      : {}),
    ...(page.remaining ? { remaining: page.remaining, more: `${page.remaining} more: ${next(page.cursor)}` } : {}),
    ...(page.passed ? { hidden: `${page.passed} left out by the alert settings (types, min_milliunits)` } : {}),
  };
  return { answer, cursor: page.cursor };
}

/** The alerts tool: settings changed first (when given), then what fired since the cursor (its kept one, or the one given). */
export async function alertsAnswer(events: EventsService, budgetParam: string, args: AlertsArgs): Promise<Record<string, unknown>> {
  let settings: AlertSettings;
  if (args.settings) {
    const problem = settingsProblem(args.settings);
    if (problem) throw new ArgumentError(problem);
    settings = await events.settings.set(args.settings);
  } else settings = await events.settings.get();
  const { replica, state } = await events.refresh(budgetParam);
  const budgetId = replica.summary.id;
  const since = args.cursor ?? (await events.settings.cursor(budgetId));
  const kept = args.cursor === undefined;
  const { answer, cursor } = alertsPage(state, since, settings, (c) => (kept ? 'call again for them' : `call again with cursor "${c}"`));
  if (kept) await events.settings.setCursor(budgetId, cursor);
  return { ...answer, ...(args.settings ? { settings } : {}) };
}

/** The alerts resource: a page of alerts after `cursor` (without one, from the oldest kept), each saying whether it still holds. */
export async function alertsRead(events: EventsService, budgetParam: string, cursor?: string): Promise<Record<string, unknown>> {
  const { replica, state } = await events.refresh(budgetParam);
  const budgetId = replica.summary.id;
  const settings = await events.settings.get();
  const { answer } = alertsPage(state, cursor, settings, (c) => `read ynab://budgets/${budgetId}/alerts?cursor=${encodeURIComponent(c)}`);
  return { budget_id: budgetId, ...answer };
}
