/**
 * What the Events methods refuse before they hold anything (issue 59 item 8, "Events hold under
 * attack"): a cursor not of this server's form (InvalidParams: `epoch.1.5` was read as 1), a
 * budget the principal cannot read (Forbidden, where YNAB's 404 used to surface as -32603), and
 * the per-principal caps (ResourceExhausted, -32025, with `data.limit` and `data.max` as the SEP
 * has them): webhook subscriptions, open streams, and verification handshakes per host.
 */
import { ProtocolError } from '@modelcontextprotocol/server';
import { ApiError } from '../../api/client/errors.js';
import { cursorParts } from '../../events/cursor.js';
import { capsFromEnv, DEFAULT_CAPS, Slots, type Caps } from '../../events/principal-caps.js';
import type { EventsService } from '../../events/service.js';
import { verifyGate } from '../../events/webhook-verify.js';
import type { Webhooks } from '../../events/webhooks.js';
import { ERR } from './events-errors.js';

/** The caps: the defaults, what the operator's environment sets, what the stack was given (tests). */
export const capsOf = (hooks: Webhooks): Caps => ({ ...DEFAULT_CAPS, ...capsFromEnv(), ...hooks.opts.caps });

/** A cursor is `<epoch>.<sequence>` as this server gave it, or null/absent (start from now). */
export function checkCursor(cursor: string | null | undefined): void {
  if (typeof cursor === 'string' && !cursorParts(cursor))
    throw new ProtocolError(
      ERR.invalidParams,
      'cursor is not one this server gave (<epoch>.<sequence>); pass a cursor from an earlier answer, or null to start from now.',
    );
}

/** Runs a read of the budget the arguments name; a budget this sign-in cannot read is Forbidden (YNAB answers 404 for another user's). */
export async function readable<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || (e.status === 403 && !e.isReadOnlyScope)))
      throw new ProtocolError(ERR.forbidden, 'arguments.budget_id names no budget this sign-in can read; list_budgets lists yours.', {
        reason: 'budget_unavailable',
      });
    throw e;
  }
}

function exhausted(limit: string, max: number, message: string, extra: Record<string, unknown> = {}): never {
  throw new ProtocolError(ERR.exhausted, message, { limit, max, ...extra });
}

const overCap = (max: number) =>
  exhausted(
    'subscriptions',
    max,
    `You hold ${max} webhook subscriptions, the most this server keeps per user; events/unsubscribe one you no longer need, then subscribe again.`,
  );

/** Refuses a new webhook subscription past the principal's cap (a refresh of one it holds always passes). */
export async function checkWebhookCap(hooks: Webhooks): Promise<void> {
  const max = capsOf(hooks).webhooks;
  // Counted from the ids list; at the cap, once more after all() removes the expired.
  if ((await hooks.listed()).length >= max && (await hooks.all()).length >= max) overCap(max);
}

/**
 * After a new subscription is kept: subscribes at once all pass checkWebhookCap before any is
 * kept (one shared handshake lets a burst through together), so each looks again: the first `max`
 * in the order they were kept stay, and one after them removes itself and is refused. Never over
 * the cap once they end.
 */
export async function keepWithinCap(hooks: Webhooks, id: string): Promise<void> {
  const max = capsOf(hooks).webhooks;
  const at = (await hooks.listed()).indexOf(id);
  if (at >= 0 && at < max) return;
  await hooks.remove(id);
  overCap(max);
}

const streams = new WeakMap<EventsService, Slots>();

/** Takes one of the principal's open-stream places (one stack per principal); answers how to give it back. */
export function takeStream(events: EventsService, hooks: Webhooks): () => void {
  const max = capsOf(hooks).streams;
  const slots = streams.get(events) ?? streams.set(events, new Slots(max)).get(events)!;
  const release = slots.take();
  if (!release)
    exhausted(
      'streams',
      max,
      `You have ${max} events/stream requests open, the most this server holds per user; close one (cancel its request), or use events/poll.`,
    );
  return release;
}

/** The endpoint's handshake, once per URL at a time and within its host's rate (webhook-verify.ts); marks (principal, url) verified. */
export async function verifyOnce(hooks: Webhooks, principal: string, s: { id: string; url: string; secret: string }): Promise<void> {
  const max = capsOf(hooks).verifyPerHost;
  const outcome = await verifyGate.run(principal, s.url, max, async () => {
    if (await hooks.isVerified(principal, s.url)) return undefined;
    const failed = await hooks.verify(s);
    if (!failed) await hooks.markVerified(principal, s.url);
    return failed;
  });
  if (typeof outcome === 'object') {
    const seconds = Math.ceil(outcome.retryAfterMs / 1000);
    exhausted(
      'verifications',
      max,
      `${max} verification handshakes went to ${new URL(s.url).hostname} in the last minute, the most this server sends; try again in ${seconds} s.`,
      {
        retryAfterMs: outcome.retryAfterMs,
      },
    );
  }
  if (outcome) throw new ProtocolError(ERR.callback, `The callback endpoint did not confirm the subscription (${outcome}).`, { reason: outcome });
}
