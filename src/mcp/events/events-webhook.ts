/**
 * `events/subscribe` and `events/unsubscribe`, the Events extension's webhook delivery
 * (src/events/webhooks.ts delivers). Only for an authenticated principal (hosted mode's user, or
 * `serve` with a bearer token): the SEP keys a subscription by (principal, url, name, arguments),
 * and without a principal anyone could guess the key. Subscribing checks the secret's form, the
 * URL (https; its addresses public), verifies the endpoint with a signed challenge before the
 * first delivery (once per principal and URL, kept a day: Webhooks.isVerified), grants a TTL between 1 minute and 24 hours (default
 * 1 hour; no-expiry is not granted), and answers `{id, refreshBefore, cursor, truncated,
 * deliveryStatus}`. A refresh reactivates a failing subscription.
 */
import { ProtocolError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { checked, ERR } from './events.js';
import { onEvents } from './events-dialect.js';
import { checkWebhookCap, keepWithinCap, readable, verifyOnce } from './events-guard.js';
import { cursorParts } from '../../events/cursor.js';
import { sessionBudgetParam } from '../resolve/resolve.js';
import type { ServerState } from '../state/state.js';

const Delivery = z.object({ mode: z.literal('webhook').optional(), url: z.string().max(2048), secret: z.string().max(200).optional() });

const SubscribeParams = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  delivery: Delivery,
  cursor: z.string().max(200).nullable().optional(),
  maxAgeMs: z.number().int().min(0).optional(),
  ttlMs: z.number().int().min(0).nullable().optional(),
});

const UnsubscribeParams = SubscribeParams.pick({ name: true, arguments: true }).extend({ delivery: Delivery.pick({ url: true }) });

/**
 * What a subscription's handling needs, loaded with the first one: the webhooks' code (and the
 * credentials, quota and HTTP client behind it) is not loaded to list tools (bench: footprint).
 */
const loadWebhooks = () => Promise.all([import('../../events/log.js'), import('../../events/webhook-send.js'), import('../../events/webhooks.js')]);

function forbidden(): never {
  throw new ProtocolError(ERR.forbidden, 'Webhook subscriptions need an authenticated principal: hosted mode, or serve over HTTP with --http-token-file.');
}

/** Where delivery starts: the given cursor when this log has it, else now (truncated). */
function startAt(epoch: string, head: number, cursor: string | null | undefined): { through: number; truncated: boolean } {
  if (!cursor) return { through: head, truncated: false };
  const at = cursorParts(cursor);
  return at && at.epoch === epoch && at.seq <= head ? { through: at.seq, truncated: false } : { through: head, truncated: true };
}

export function registerWebhooks(server: McpServer, state: ServerState, principal: string | undefined, caller?: (ctx: ServerContext) => string): void {
  const s = server.server;
  onEvents(s, 'events/subscribe', { params: SubscribeParams }, async (params, ctx, dialect) => {
    if (!principal) forbidden();
    const { name, args } = checked(params);
    const [stack, [{ cursorOf }, { checkedAddress, secretBytes, urlProblem }, { DEFAULT_TTL_MS, MAX_TTL_MS, MIN_TTL_MS, subscriptionId }]] = await Promise.all([
      state.ready(),
      loadWebhooks(),
    ]);
    const hooks = stack.webhooks;
    if (!params.delivery.secret || !secretBytes(params.delivery.secret))
      throw new ProtocolError(ERR.invalidParams, 'delivery.secret must be "whsec_" followed by the base64 of 24 to 64 random bytes (Standard Webhooks).');
    const url = params.delivery.url;
    const problem = urlProblem(url, hooks.opts.allowLoopback);
    if (problem) throw new ProtocolError(ERR.invalidParams, `${problem}.`);
    if (!(await checkedAddress(new URL(url), hooks.opts)))
      throw new ProtocolError(
        ERR.invalidParams,
        'delivery.url resolves to no public address (private, loopback, link-local or reserved addresses are refused).',
      );

    const id = subscriptionId(principal, url, name, args);
    const existing = await hooks.get(id);
    const secret = params.delivery.secret;
    if (!existing) await checkWebhookCap(hooks);
    if (!(await hooks.isVerified(principal, url))) await verifyOnce(hooks, principal, { id, url, secret });
    const budget = await sessionBudgetParam(state, args.budget_id);
    const { replica, state: log } = await readable(() => stack.events.refresh(budget));
    const start = startAt(log.epoch, log.seq, params.cursor);
    const live = existing && existing.epoch === log.epoch;
    const ttl = params.ttlMs === null ? MAX_TTL_MS : Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, params.ttlMs ?? DEFAULT_TTL_MS));
    const expiresAt = Date.now() + ttl;
    const record = {
      id,
      principal,
      name,
      arguments: args,
      url,
      secret,
      // Which envelopes (gap, terminated) and codes its deliveries use (events-dialect.ts).
      dialect,
      budgetId: replica.summary.id,
      epoch: log.epoch,
      // A live subscription keeps its position (a cursor at or behind it changes nothing).
      through: live ? existing.through : start.through,
      expiresAt,
      status: { ...(existing?.status ?? { lastDeliveryAt: null, lastError: null }), active: true },
      // What its webhook delivers is not pulled again by this client (pull-alerts.ts).
      ...(caller ? { client: caller(ctx) } : {}),
    };
    if (record.status.active) delete (record.status as { failedSince?: string }).failedSince;
    const kept = await hooks.upsert(record);
    if (!existing) await keepWithinCap(hooks, id);
    void hooks.deliver(id);
    return {
      id,
      refreshBefore: new Date(expiresAt).toISOString(),
      cursor: cursorOf(log, kept.through),
      // A gap found since the last refresh of a subscriber that takes no gap envelope (ChatGPT) is told here.
      truncated: (!live && start.truncated) || existing?.gapped === true,
      ...(existing ? { deliveryStatus: { ...existing.status, lastError: existing.status.lastError } } : {}),
    };
  });
  onEvents(s, 'events/unsubscribe', { params: UnsubscribeParams }, async (params) => {
    if (!principal) forbidden();
    const { name, args } = checked(params);
    const [stack, { subscriptionId }] = await Promise.all([state.ready(), import('../../events/webhooks.js')]);
    const removed = await stack.webhooks.remove(subscriptionId(principal, params.delivery.url, name, args));
    if (!removed) throw new ProtocolError(ERR.notFound, 'No subscription of yours has this name, arguments and delivery.url.', { kind: 'subscription' });
    return {};
  });
}
