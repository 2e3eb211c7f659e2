/**
 * Alerts for hosts without the Events extension, by default (issue 59 item 2): needs_attention,
 * in the default and core lists, answers "anything I should know?" with the alerts fired since the
 * asking client last asked (src/events/pull.ts keeps each client's place in the store), beside
 * what needs attention now. Full detail gives each row as the alerts tool does (ids, milliunits
 * and their text); the overview gives each compact (names, dates, figures as text) within
 * ALERTS_BYTES, the overview making room for them (an answer with no new alert keeps to 2 KB). What Events
 * delivered to that client (events/poll, events/stream, its webhooks) is left out, so an alert
 * reaches each client once. docs/alerts.md, "By default: needs_attention".
 */
import { formatMilliunits } from '../../api/money.js';
import { alertRow } from '../../events/alerts.js';
import { pullPage } from '../../events/pull.js';
import { cursorOf, type Occurrence } from '../../events/log.js';
import type { EventsService } from '../../events/service.js';
import { EVENT_MONEY_FIELDS } from '../../shared/event-money.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { quotableAlert } from '../../writes/alerts/alerts-task.js';

/** What the overview's alerts may take (the rest: ask again); the overview gives up its reasons and first items to make room. */
export const ALERTS_BYTES = 1_000;

/** An alert in the overview: its type, names, dates and figures as text (`old_formatted`; no ids, no milliunits, no counts by type). */
function compact(row: Record<string, unknown>, money: (m: number) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'event_id' || k === 'at' || k === 'open' || k.endsWith('_id') || k.endsWith('_formatted') || (k === 'still_open' && v === true)) continue;
    // A figure keeps its one name across tools: as text it is the field's `_formatted` companion.
    if (EVENT_MONEY_FIELDS.includes(k) && typeof v === 'number') out[`${k}_formatted`] = money(v);
    else out[k] = v;
  }
  return out;
}

export interface Pulled {
  /** The answer's members: `alerts`, and the lines saying what they left out. */
  fields: Record<string, unknown>;
  /** Moves the client's place past what `fields` shows: once the answer holding them is made. */
  commit(): Promise<void>;
}

/**
 * The answer's alerts for `client`: the next page after its place (a first ask: none, from now
 * on), compact within ALERTS_BYTES unless `full`. Every line says what it left out.
 */
export async function pulledAlerts(events: EventsService, replica: BudgetReplica, client: string, full: boolean): Promise<Pulled> {
  // The sync that read this copy scans it too, in the background; this scan is that one, or does it now.
  await events.scan(replica);
  const budgetId = replica.summary.id;
  const [state, record, settings] = await Promise.all([events.log.read(budgetId), events.pulls.get(budgetId, client), events.settings.get()]);
  const page = pullPage(state, record, settings);
  const open = new Set(Object.values(state.open));
  const format = replica.summary.currency_format ?? null;
  const money = (m: number) => formatMilliunits(m, format);
  const rows = page.events.map((o) => quotableAlert(money, alertRow(o, open)));
  let shown: Occurrence[] = page.events;
  let alerts: Record<string, unknown>[] = rows;
  if (!full) {
    alerts = [];
    for (const r of rows.map((x) => compact(x, money))) {
      if (alerts.length && JSON.stringify([...alerts, r]).length > ALERTS_BYTES) break;
      alerts.push(r);
    }
    shown = page.events.slice(0, alerts.length);
  }
  const more = page.remaining + page.events.length - shown.length;
  // After the last alert shown, never past one not shown.
  const cursor = shown.length < page.events.length ? cursorOf(state, shown.at(-1)!.seq) : page.cursor;
  const left = [
    page.delivered ? `${page.delivered} delivered to this client by Events` : '',
    page.hidden ? `${page.hidden} left out by the alert settings` : '',
  ].filter(Boolean);
  return {
    fields: {
      alerts,
      ...(page.earlier === undefined
        ? {}
        : { alerts_since: `first ask: new alerts from now on${page.earlier ? `; ${page.earlier} earlier: the alerts resource` : ''}` }),
      ...(more ? { alerts_more: `${more} more: ask again${full ? '' : '; detail "full" gives ids and milliunits'}` } : {}),
      ...(left.length ? { alerts_left_out: left.join('; ') } : {}),
    },
    commit: async () => {
      if (cursor !== record.cursor) await events.pulls.advance(budgetId, client, cursor);
    },
  };
}
