/**
 * The alerts resource, `ynab://budgets/{budget_id}/alerts`, for hosts without the Events extension
 * (Claude reads resources and follows resources/subscribe): every alert open now, newest first
 * (src/events/alerts.ts), marked as budget data like every answer. A subscriber hears
 * `notifications/resources/updated` when an alert of the budget fires: over stdio (and 2025-era
 * connections that keep one server) through resources/subscribe here; over Streamable HTTP's
 * 2026-07-28 `subscriptions/listen` through the handler's bus (http.ts).
 */
import { escapeText } from './output/sanitize.js';
import { ResourceTemplate, type McpServer, type Variables } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { completeBudget } from './resources.js';
import { sessionBudgetParam } from './resolve.js';
import { sanitize } from './output/sanitize.js';
import { ANSWER_MIME_TYPE as MIME, answerText, USER_DATA_NOTICE } from './output/untrusted.js';
import type { ServerState } from './state.js';

export const alertsUri = (budgetId: string) => `ynab://budgets/${budgetId}/alerts`;

const TEMPLATE = 'ynab://budgets/{budget_id}/alerts';

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
  server.registerResource(
    'alerts',
    template,
    {
      title: 'Alerts',
      description:
        'Alerts open now (overspending, cards short, bills uncovered, price rises, targets short, reconciling due, review queue), newest first. Subscribe to hear when one fires.',
      mimeType: MIME,
    },
    async (uri: URL, vars: Variables) => {
      const raw = Array.isArray(vars.budget_id) ? vars.budget_id[0] : vars.budget_id;
      const events = (await state.ready()).events;
      const { openAlerts } = await import('../events/alerts.js');
      const answer = sanitize(await openAlerts(events, await sessionBudgetParam(state, decodeURIComponent(raw ?? ''))));
      return { contents: [{ uri: uri.href, mimeType: MIME, text: answerText({ ...answer, data_notice: USER_DATA_NOTICE }) }] };
    },
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
    stop ??= events.onFired((budgetId) => {
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
