/**
 * `events/stream`, the Events extension's push delivery: one long-lived request per subscription.
 * It answers at once with an error when the subscription is invalid; else it confirms with
 * `notifications/events/active` (the cursor it starts from, `truncated` when the given one was
 * older than the log keeps), replays what came after the given cursor, then sends each new
 * occurrence as `notifications/events/event` with the cursor after it, and a heartbeat with the
 * cursor every HEARTBEAT_MS. Every notification carries the request's id as
 * `_meta["io.modelcontextprotocol/subscriptionId"]`. It ends when the client aborts (HTTP) or
 * cancels (stdio); the transport's deadline does not apply to it (http-deadline.ts).
 *
 * New occurrences are those any sync of the budget records (an interactive call's, a poll's, the
 * watcher's; in hosted mode another instance's too, read from the shared log: src/events/follow.ts); while the stream is open its budget is watched, so the interval
 * watcher syncs it once per interval (src/events/watcher.ts).
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { sessionBudgetParam } from '../resolve/resolve.js';
import type { ServerState } from '../state/state.js';
import { checked, PollParams, wire } from './events.js';
import { onEvents } from './events-dialect.js';
import { readable, takeStream } from './events-guard.js';
import { MAX_EVENTS } from '../../events/limits.js';
import type { Occurrence } from '../../events/log.js';

export const HEARTBEAT_MS = 25_000;

const StreamParams = PollParams.omit({ maxEvents: true }).extend({ cursor: z.string().max(200).nullable().optional() });

export function registerStream(server: McpServer, state: ServerState, caller?: (ctx: ServerContext) => string): void {
  onEvents(server.server, 'events/stream', { params: StreamParams }, async (params, ctx) => {
    const { name, args } = checked(params);
    const { events, webhooks } = await state.ready();
    const budget = await sessionBudgetParam(state, args.budget_id);
    const signal = ctx.mcpReq.signal;
    const _meta = { 'io.modelcontextprotocol/subscriptionId': ctx.mcpReq.id };
    const notify = (method: string, p: Record<string, unknown>) => ctx.mcpReq.notify({ method, params: { ...p, _meta } } as never);

    // One of the principal's open-stream places (events-guard.ts), given back when the stream ends or fails to start.
    const release = takeStream(events, webhooks);
    let first: Awaited<ReturnType<typeof events.poll>>;
    try {
      first = await readable(() => events.poll(budget, name, args, params.cursor ?? null, MAX_EVENTS, params.cursor ? params.maxAgeMs : undefined));
      await notify('notifications/events/active', { cursor: params.cursor && !first.truncated ? params.cursor : first.cursor, truncated: first.truncated });
    } catch (e) {
      release();
      throw e;
    }
    const epoch = first.cursor.split('.')[0];
    // Delivered to this client by Events: its needs_attention does not show them again.
    const client = caller?.(ctx);
    const send = async (page: { events: Occurrence[] }) => {
      for (const o of page.events) await notify('notifications/events/event', wire(o, `${epoch}.${o.seq}`));
      if (client)
        await events.pulls.delivered(
          first.budgetId,
          client,
          page.events.map((o) => o.eventId),
        );
    };
    let cursor = first.cursor;
    // Replay first, page by page, then new occurrences as they are recorded; one drain at a time.
    let draining: Promise<void> = (async () => {
      for (;;) {
        await send(first);
        cursor = first.cursor;
        if (!first.hasMore || signal.aborted) return;
        first = await events.poll(budget, name, args, cursor, MAX_EVENTS);
      }
    })();
    const drain = () => {
      draining = draining
        .then(async () => {
          for (let more = true; more && !signal.aborted;) {
            const page = await events.poll(budget, name, args, cursor, MAX_EVENTS);
            await send(page);
            cursor = page.cursor;
            more = page.hasMore;
          }
        })
        .catch((e: unknown) =>
          notify('notifications/events/error', { error: { code: -32603, message: 'UpstreamError', data: { reason: (e as Error).message } } }).catch(() => {}),
        );
    };
    const stop = events.onHeard(() => drain());
    const heartbeat = setInterval(() => void notify('notifications/events/heartbeat', { cursor }).catch(() => {}), HEARTBEAT_MS);
    // While the stream is open its budget is watched: the interval watcher syncs it (src/events/watcher.ts).
    const unwatch = events.watch(first.budgetId);
    heartbeat.unref();
    try {
      await draining;
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    } finally {
      release();
      stop();
      clearInterval(heartbeat);
      unwatch();
    }
    return { _meta };
  });
}
