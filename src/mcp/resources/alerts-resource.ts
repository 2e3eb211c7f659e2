/**
 * The alerts resource, `ynab://budgets/{budget_id}/alerts`, for hosts without the Events extension
 * (Claude reads resources and follows resources/subscribe): the budget's alerts a page at a time,
 * oldest first, each saying whether it still holds, and `…/alerts?cursor=` for what fired after a
 * read (src/events/alerts.ts: nothing is skipped), marked as budget data like every answer. A subscriber hears
 * `notifications/resources/updated` when an alert of the budget fires: over stdio (and 2025-era
 * connections that keep one server) through resources/subscribe here; over Streamable HTTP's
 * 2026-07-28 `subscriptions/listen` through the handler's bus (http.ts).
 */
import { escapeText } from '../output/sanitize.js';
import { ResourceTemplate, type McpServer, type Variables } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { completeBudget } from './resources.js';
import { sessionBudgetParam } from '../resolve/resolve.js';
import { sanitize } from '../output/sanitize.js';
import { ANSWER_MIME_TYPE as MIME, answerText, USER_DATA_NOTICE } from '../output/untrusted.js';
import type { ServerState } from '../state/state.js';

export const alertsUri = (budgetId: string) => `ynab://budgets/${budgetId}/alerts`;

const TEMPLATE = 'ynab://budgets/{budget_id}/alerts';
const SINCE_TEMPLATE = 'ynab://budgets/{budget_id}/alerts{?cursor}';

export function registerAlertsResource(server: McpServer, state: ServerState): void {
  const template = new ResourceTemplate(TEMPLATE, {
    // The session's budget only: listing every budget's alerts would scan every budget.
    // Best effort: without a token (or a copy held) it lists nothing; the other lists say why.
    list: async () => {
      const stack = await state.started().catch(() => undefined);
      const budget = stack?.replicas.peek(await sessionBudgetParam(state, undefined).catch(() => 'last-used'));
      return { resources: budget ? [{ uri: alertsUri(budget.summary.id), name: `Alerts: ${escapeText(budget.summary.name)}`, mimeType: MIME }] : [] };
    },
    complete: { budget_id: completeBudget(state) },
  });
  const read = async (uri: URL, vars: Variables) => {
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    const raw = one(vars.budget_id);
    const cursor = one(vars.cursor);
    const events = (await state.ready()).events;
    const { alertsRead } = await import('../../events/alerts.js');
    const budget = await sessionBudgetParam(state, decodeURIComponent(raw ?? ''));
    const answer = sanitize(await alertsRead(events, budget, cursor === undefined ? undefined : decodeURIComponent(cursor)));
    return { contents: [{ uri: uri.href, mimeType: MIME, text: answerText({ ...answer, data_notice: USER_DATA_NOTICE }) }] };
  };
  server.registerResource(
    'alerts',
    template,
    {
      title: 'Alerts',
      description:
        "The budget's alerts (overspending, cards short, bills uncovered, price rises, targets short, reconciling due, review queue, the weekly digest), oldest first, each saying whether it still holds, 30 a read; the answer's cursor reads what fired since (alerts_since). Subscribe to hear when one fires.",
      mimeType: MIME,
    },
    read,
  );
  // The same read after a cursor: a template of its own, as the plain URI has no query to match.
  server.registerResource(
    'alerts_since',
    new ResourceTemplate(SINCE_TEMPLATE, { list: undefined, complete: { budget_id: completeBudget(state) } }),
    {
      title: 'Alerts since a cursor',
      description: 'The alerts fired after the cursor an alerts read gave, oldest first, 30 a read; its cursor reads the next.',
      mimeType: MIME,
    },
    read,
  );
  subscriptions(server, state);
}

const Subscribe = z.object({ uri: z.string() });

/** resources/subscribe for a connection that keeps its server (stdio): updates for the alerts URIs it named. */
function subscriptions(server: McpServer, state: ServerState): void {
  const s = server.server;
  // Each URI subscribed to, with the way to stop watching its budget (the interval watcher syncs it meanwhile).
  const uris = new Map<string, () => void>();
  let stop: (() => void) | undefined;
  s.registerCapabilities({ resources: { subscribe: true } });
  s.setRequestHandler('resources/subscribe', async (request) => {
    const { uri } = Subscribe.parse(request.params);
    const events = (await state.ready()).events;
    const budgetId = /^ynab:\/\/budgets\/([^/]+)\/alerts$/.exec(uri)?.[1];
    if (!uris.has(uri)) uris.set(uri, budgetId ? events.watch(budgetId) : () => {});
    stop ??= events.onHeard((budgetId) => {
      const u = alertsUri(budgetId);
      if (!s.transport) {
        for (const unwatch of uris.values()) unwatch();
        return stop?.();
      }
      if (uris.has(u)) void s.sendResourceUpdated({ uri: u }).catch(() => {});
    });
    return {};
  });
  s.setRequestHandler('resources/unsubscribe', async (request) => {
    const { uri } = Subscribe.parse(request.params);
    uris.get(uri)?.();
    uris.delete(uri);
    return {};
  });
}
