/**
 * The Events extension (SEP-3415, `io.modelcontextprotocol/events`) on an MCP server: declared in
 * the capabilities `server/discover` and `initialize` answer with (under `extensions`, and at the
 * top-level `events` as ChatGPT and the design sketch read it), and its methods registered through the SDK's
 * custom request handlers (the SDK has no Events support of its own): `events/list`, `events/poll`,
 * `events/stream` (events-stream.ts), `events/subscribe` and `events/unsubscribe` (webhooks,
 * events-webhook.ts). The events themselves are src/events: detection after each sync, the
 * occurrence logs, cursors and replay. Errors are the SEP's: NotFound -32023, Forbidden -32024,
 * ResourceExhausted -32025, Unsupported -32026, CallbackEndpointError -32027, InvalidParams -32602;
 * renumbered for a session of another dialect (events-dialect.ts).
 */
import { ProtocolError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { ArgumentsSchema, eventDescriptors, isEventName, type EventArguments, type EventName } from '../../events/catalog.js';
import type { Occurrence } from '../../events/log.js';
import { DEFAULT_MAX_EVENTS, MAX_EVENTS } from '../../events/limits.js';
import type { EventsService } from '../../events/service.js';
import { onEvents } from './events-dialect.js';
import { sessionBudgetParam } from '../resolve/resolve.js';
import { checkCursor, readable } from './events-guard.js';
import { ERR } from './events-errors.js';
import type { ServerState } from '../state/state.js';

export const EVENTS_EXTENSION_ID = 'io.modelcontextprotocol/events';

export { ERR };

/** How long a poll client should wait before the next poll when nothing is pending: the budget's copy is synced at most this often for it. */
export const NEXT_POLL_MS = 60_000;

const Cursor = z.string().max(200).nullable().optional();

export const PollParams = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  cursor: Cursor,
  maxAgeMs: z.number().int().min(0).optional(),
  maxEvents: z.number().int().min(1).optional(),
});

export const ListParams = z.object({ cursor: z.string().optional() });

/** The event type and its arguments, checked: a specific error for what is wrong. */
export function checked(params: { name: string; arguments?: Record<string, unknown>; cursor?: string | null }): { name: EventName; args: EventArguments } {
  checkCursor(params.cursor);
  if (!isEventName(params.name)) throw new ProtocolError(ERR.notFound, `Unknown event type "${params.name}"; events/list lists them.`, { kind: 'event' });
  const parsed = ArgumentsSchema.safeParse(params.arguments ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `arguments.${issue.path.join('.')}` : 'arguments';
    throw new ProtocolError(
      ERR.invalidParams,
      `${where}: ${issue.message}. The arguments are: budget_id, categories, accounts, min_milliunits (see the inputSchema in events/list).`,
    );
  }
  return { name: params.name, args: parsed.data };
}

/** An occurrence as the wire carries it: poll results have no per-event cursor, push and webhook do. */
export function wire(o: Occurrence, cursor?: string): Record<string, unknown> {
  return { eventId: o.eventId, name: o.name, timestamp: o.timestamp, data: o.data, ...(cursor === undefined ? {} : { cursor }) };
}

export async function eventsOf(state: ServerState): Promise<EventsService> {
  return (await state.ready()).events;
}

export interface EventsRegistration {
  /** Webhooks need an authenticated principal (hosted mode's user, or the bearer token of `serve`). */
  principal?: () => string | undefined;
  /** The client asking (caller.ts): what a poll delivers to it is not pulled again (pull-alerts.ts). */
  caller?: (ctx: ServerContext) => string;
}

/** Declares the extension on `server` and registers its methods (before it connects). */
export function registerEvents(server: McpServer, state: ServerState, reg: EventsRegistration = {}): void {
  const s = server.server;
  // Both declarations (SEP-3415's Backward Compatibility: a deployed client, ChatGPT, reads the top-level key).
  s.registerCapabilities({ events: {}, extensions: { [EVENTS_EXTENSION_ID]: {} } } as never);
  onEvents(s, 'events/list', { params: ListParams.optional() }, async (params) => {
    // One page: a cursor can only be stale or forged.
    if (params?.cursor) throw new ProtocolError(ERR.invalidParams, 'events/list has one page; call it without a cursor.');
    return { events: eventDescriptors() };
  });
  onEvents(s, 'events/poll', { params: PollParams }, async (params, ctx) => {
    const { name, args } = checked(params);
    const events = await eventsOf(state);
    const budget = await sessionBudgetParam(state, args.budget_id);
    const max = Math.min(params.maxEvents ?? DEFAULT_MAX_EVENTS, MAX_EVENTS);
    const page = await readable(() => events.poll(budget, name, args, params.cursor, max, params.cursor ? params.maxAgeMs : undefined));
    // Delivered to this client by Events: its needs_attention does not show them again.
    if (reg.caller)
      await events.pulls.delivered(
        page.budgetId,
        reg.caller(ctx),
        page.events.map((o) => o.eventId),
      );
    return {
      events: page.events.map((o) => wire(o)),
      cursor: page.cursor,
      truncated: page.truncated,
      hasMore: page.hasMore,
      // Beyond the SEP's fields: how many more match after this page (its cursor gets them).
      remaining: page.remaining,
      nextPollMs: NEXT_POLL_MS,
    };
  });
}
