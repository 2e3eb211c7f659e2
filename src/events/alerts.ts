/**
 * The answers of hosts without the Events extension (Claude reads resources and calls tools): the
 * `alerts` tool's "what changed since I last asked", with the alert settings it sets, and the
 * alerts resource's list of what is open now. Both read the occurrence logs events/poll reads.
 * The tool's cursor is kept per user and budget (settings.ts) unless one is given; the first call
 * answers with what is open now.
 */
import { EVENT_NAMES, type EventName } from './catalog.js';
import type { Occurrence } from './log.js';
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

/** At most this many alerts in one answer (the rest: call again with the cursor). */
export const ALERTS_PAGE = 30;

export interface AlertsArgs {
  cursor?: string;
  settings?: Record<string, unknown>;
}

/** An occurrence as an answer row: what it is, when, and its payload's fields (without the per-payload notice). */
function row(o: Occurrence): Record<string, unknown> {
  const { data_notice: _notice, budget_id: _budget, ...data } = o.data;
  return { event_id: o.eventId, type: o.name, at: o.timestamp, ...data };
}

const shown = (s: AlertSettings) => (o: Occurrence) =>
  (!s.types || s.types.includes(o.name)) && (s.min_milliunits === undefined || typeof o.data.amount !== 'number' || o.data.amount >= s.min_milliunits);

/** The alerts tool: settings changed first (when given), then what fired since the cursor. */
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
  const keep = shown(settings);
  let rows: Occurrence[];
  let cursor: string;
  let truncated = false;
  let more = false;
  if (since === undefined) {
    // Never asked: what is open now.
    const open = new Set(Object.values(state.open));
    rows = state.events.filter((o) => open.has(o.eventId) && keep(o)).reverse();
    more = rows.length > ALERTS_PAGE;
    rows = rows.slice(0, ALERTS_PAGE);
    cursor = `${state.epoch}.${state.seq}`;
  } else {
    const page = await events.poll(budgetId, EVENT_NAMES as readonly EventName[], {}, since, ALERTS_PAGE);
    rows = page.events.filter(keep);
    cursor = page.cursor;
    truncated = page.truncated;
    more = page.hasMore;
  }
  if (args.cursor === undefined) await events.settings.setCursor(budgetId, cursor);
  return {
    alerts: rows.map(row),
    count: rows.length,
    cursor,
    ...(since === undefined ? { since: 'first call: the alerts open now' } : {}),
    ...(truncated ? { truncated: 'older alerts were dropped from the history (it keeps the last 500); these are the oldest kept' } : {}),
    ...(more ? { more: `more than ${ALERTS_PAGE}: call again for the rest` } : {}),
    ...(args.settings ? { settings } : {}),
  };
}

/** The alerts resource: every alert open now, newest first. */
export async function openAlerts(events: EventsService, budgetParam: string): Promise<Record<string, unknown>> {
  const { budgetId, open, cursor } = await events.current(budgetParam);
  const settings = await events.settings.get();
  const rows = open.filter(shown(settings)).map(row);
  return { budget_id: budgetId, alerts: rows, count: rows.length, cursor };
}
