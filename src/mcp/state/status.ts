/**
 * The content of ynab://status: how many requests YNAB's hourly limit has left and when the next
 * one is possible, how fresh each budget copy is (and what kept copies from being saved or read
 * back, such as a replica key that cannot be read), where the token came from (never the token),
 * and the server's mode. Reading it starts nothing: before the first tool call or resource read
 * there is no token, ledger or replica yet, and it says so.
 */
import { formatNextSlot } from '../../quota/format.js';
import type { Stack } from '../../stack/stack.js';
import { USER_DATA_NOTICE } from '../output/untrusted.js';
import type { ServerState } from './state.js';

async function quota(stack: Stack, now: number): Promise<Record<string, unknown>> {
  const ledger = stack.client.currentLedger();
  if (!ledger) return { note: 'no request has been made to YNAB yet' };
  try {
    const s = await ledger.status();
    return {
      limit_per_hour: s.limit,
      used: s.used,
      remaining: s.remaining,
      read_remaining: s.readRemaining,
      next_slot_at: s.nextSlotAt?.toISOString() ?? null,
      next_slot: formatNextSlot(s.nextSlotAt ?? new Date(now), now),
      blocked_until: s.blockedUntil?.toISOString() ?? null,
    };
  } catch (e) {
    return { error: `the request ledger could not be read: ${stack.client.scrub((e as Error).message)}` };
  }
}

function replicas(stack: Stack, now: number): Record<string, unknown>[] {
  const maxAge = stack.replicas.maxStalenessMs;
  return stack.replicas.held().map((r) => {
    const f = stack.replicas.freshnessOf(r);
    return {
      budget_id: r.summary.id,
      name: r.summary.name,
      synced_at: f.synced_at,
      age_seconds: f.age_seconds,
      knowledge: r.knowledge,
      // What the next read does: answer from this copy, or ask YNAB for the changes first.
      next_read: r.dirty
        ? 'syncs first (a write changed the budget)'
        : now - r.syncedAt < maxAge
          ? 'answered from this copy'
          : 'syncs first (older than the staleness bound)',
    };
  });
}

/**
 * The budget calls without budget_id use: its id and name once known, and what set it. Before a
 * call resolved `last-used`, what it will be.
 */
async function defaultBudget(state: ServerState, stack: Stack | undefined): Promise<Record<string, unknown>> {
  const configured = state.config.defaultBudget;
  const chosen = configured === 'last-used' ? await state.session.current().catch(() => undefined) : undefined;
  const value = chosen?.id ?? (configured === 'last-used' ? undefined : configured);
  if (!value) return { chosen_by: 'last-used: the budget last used in YNAB, taken by the first call that needs it, then kept for this session' };
  const lower = value.toLowerCase();
  const held = stack && (stack.replicas.peek(value) ?? stack.replicas.held().find((r) => r.summary.name.toLowerCase() === lower));
  return {
    ...(held ? { id: held.summary.id, name: held.summary.name } : { [chosen ? 'id' : 'configured']: value }),
    chosen_by: state.config.defaultBudgetFrom ?? 'last-used when this session started (kept for the session; budget_id picks another for a call)',
  };
}

export async function serverStatus(state: ServerState, now: number = Date.now()): Promise<Record<string, unknown>> {
  const stack = await state.started();
  const info = state.tokenInfo();
  const mode = {
    default_budget: await defaultBudget(state, stack),
    toolsets: [...state.config.toolsets],
    read_only: state.readOnly,
    // Which writes answer with a preview and a confirm_token first (--writes).
    writes: state.config.writes,
    ...(state.readOnly ? { read_only_reason: state.readOnlyReason() } : {}),
  };
  if (!stack) {
    return {
      connected: false,
      connection:
        'not connected yet: nothing has asked YNAB for data since the server started, so no token has been read and no request made. The first tool call or budget resource read connects.',
      ...mode,
      token: null,
      quota: null,
      replicas: [],
    };
  }
  const held = replicas(stack, now);
  // Saved copies that could not be read or kept (the replica key, the state directory): answers
  // come from YNAB and live in memory only until that is fixed.
  const problems = stack.replicas.problems().map((p) => stack.client.scrub(p));
  return {
    connected: true,
    ...mode,
    token: info
      ? {
          source: info.source,
          kind: info.kind,
          ...(info.scope ? { scope: info.scope } : {}),
          ...(info.expiresAt !== undefined ? { expires_at: info.expiresAt } : {}),
        }
      : null,
    quota: await quota(stack, now),
    max_staleness_seconds: Math.round(stack.replicas.maxStalenessMs / 1000),
    replicas: held,
    // The interval watcher: what it watches, what its last tick did, and syncs put off for its share.
    watcher: stack.watcher.status(),
    ...(problems.length ? { saved_copy_problems: problems } : {}),
    // Budget names are typed by people.
    ...(held.length ? { data_notice: USER_DATA_NOTICE } : {}),
  };
}
