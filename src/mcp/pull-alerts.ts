/**
 * Alerts for hosts without the Events extension, by default (issue 59 item 2): needs_attention,
 * in the default and core lists, answers "anything I should know?" with the alerts fired since the
 * asking client last asked (src/events/pull.ts keeps each client's place in the store), beside
 * what needs attention now, each row as the alerts tool gives it (money beside its text). What
 * Events delivered to that client (events/poll, events/stream, its webhooks) is left out, so an
 * alert reaches each client once. docs/alerts.md, "Hosts without Events".
 */
import { formatMilliunits } from '../api/money.js';
import { alertRow } from '../events/alerts.js';
import { FIRST_DAYS, pullPage } from '../events/pull.js';
import type { EventsService } from '../events/service.js';
import type { BudgetReplica } from '../sync/replica.js';
import { quotableAlert } from '../writes/alerts/alerts-task.js';

/**
 * The answer's alerts for `client`: the next page after its place (a first ask: the last
 * FIRST_DAYS days), its place moved past them. Every line says what it left out and where it is.
 */
export async function pulledAlerts(events: EventsService, replica: BudgetReplica, client: string): Promise<Record<string, unknown>> {
  // The sync that read this copy scans it too, in the background; this scan is that one, or does it now.
  await events.scan(replica);
  const budgetId = replica.summary.id;
  const [state, record, settings] = await Promise.all([events.log.read(budgetId), events.pulls.get(budgetId, client), events.settings.get()]);
  const page = pullPage(state, record, settings, Date.now());
  await events.pulls.advance(budgetId, client, page.cursor);
  const open = new Set(Object.values(state.open));
  const format = replica.summary.currency_format ?? null;
  const left = [
    page.delivered ? `${page.delivered} delivered to this client by Events` : '',
    page.hidden ? `${page.hidden} left out by the alert settings (types, min_milliunits)` : '',
  ].filter(Boolean);
  return {
    alerts: page.events.map((o) => quotableAlert((m) => formatMilliunits(m, format), alertRow(o, open))),
    ...(page.older === undefined
      ? {}
      : { alerts_since: `first ask: the last ${FIRST_DAYS} days${page.older ? `; ${page.older} older in ynab://budgets/${budgetId}/alerts` : ''}` }),
    ...(page.remaining ? { alerts_more: `${page.remaining} more: ask again` } : {}),
    ...(left.length ? { alerts_left_out: left.join('; ') } : {}),
  };
}
