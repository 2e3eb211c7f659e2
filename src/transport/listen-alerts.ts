/**
 * The alerts resource over 2026-07-28 `subscriptions/listen` streams (issue 44 item 6), in plain
 * `serve` and in hosted mode. A listen stream that names alerts URIs
 * (`ynab://budgets/<id>/alerts` in `notifications.resourceSubscriptions`) marks those budgets
 * watched for as long as it is open, as resources/subscribe does over stdio, so the interval
 * watcher syncs them; and its user hears `notifications/resources/updated` when an alert of one
 * fires. In hosted mode the occurrence may be recorded by another instance (the watcher's lease):
 * the user's events follow the budget's log in the shared store while it is listened to
 * (src/events/follow.ts), and the update goes to that user's streams only (scoped-bus.ts). The SDK
 * routes each update to the streams that named its URI.
 */
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { alertsUri } from '../mcp/resources/alerts-resource.js';
import type { ServerState } from '../mcp/state/state.js';

const ALERTS = /^ynab:\/\/budgets\/([^/]+)\/alerts$/;
/** A listen request names at most this many alerts URIs that are acted on (each budget is watched). */
const MAX_WATCHED = 20;

/** The budget ids named by alerts URIs in a listen request's body; [] for anything else. */
export function alertsBudgetsOf(body: unknown): string[] {
  const subs = (body as { params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined)?.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(subs)) return [];
  const ids = subs.flatMap((u) => (typeof u === 'string' ? [ALERTS.exec(u)?.[1]] : [])).filter((id): id is string => !!id);
  return [...new Set(ids)].slice(0, MAX_WATCHED);
}

export interface ListenAlertsDeps {
  /** The state of the user the stream is for (hosted: theirs; else the one state). */
  stateOf: (auth: AuthInfo | undefined) => ServerState;
  /** Hosted: the user the stream is for; '' otherwise. */
  userOf: (auth: AuthInfo | undefined) => string;
  /** Publishes an update for `uri` to `user`'s streams; undefined when another publisher does (plain serve). */
  publish?: (user: string, uri: string) => void;
  log: (line: string) => void;
}

/** Per user's stack with an open listen stream naming alerts: the streams open, and the way to stop hearing. */
interface Hearing {
  streams: number;
  stop: () => void;
}

export class ListenAlerts {
  // Keyed by the stack, not the user: a user signed in again gets a new state (and stack), whose
  // occurrences their new streams must hear while an old stream may still be open on the old one.
  private readonly hearing = new Map<object, Hearing>();

  constructor(private readonly deps: ListenAlertsDeps) {}

  /** Wraps the SDK handler: a listen stream naming alerts URIs watches their budgets while open. */
  wrap(handler: FetchLikeMcpHandler): FetchLikeMcpHandler {
    return {
      fetch: async (request, options) => {
        const budgets = request.method === 'POST' ? await budgetsAsked(request, options?.parsedBody) : [];
        if (!budgets.length) return handler.fetch(request, options);
        const stop = await this.open(options?.authInfo, budgets).catch((e: unknown) => {
          // The kind only; the stream is served anyway (it still hears tool changes).
          this.deps.log(`http: alerts for a listen stream could not start (${(e as Error).name})`);
          return () => {};
        });
        if (request.signal.aborted) stop();
        else request.signal.addEventListener('abort', stop, { once: true });
        try {
          return await handler.fetch(request, options);
        } catch (e) {
          stop();
          throw e;
        }
      },
    };
  }

  private async open(auth: AuthInfo | undefined, budgets: string[]): Promise<() => void> {
    const stack = await this.deps.stateOf(auth).ready();
    const unwatch = budgets.map((id) => stack.events.watch(id));
    const user = this.deps.userOf(auth);
    const publish = this.deps.publish;
    let hearing: Hearing | undefined;
    if (publish) {
      hearing = this.hearing.get(stack);
      if (!hearing) {
        hearing = { streams: 0, stop: stack.events.onHeard((budgetId) => publish(user, alertsUri(budgetId))) };
        this.hearing.set(stack, hearing);
      }
      hearing.streams++;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      unwatch.forEach((u) => u());
      if (hearing && --hearing.streams === 0) {
        hearing.stop();
        this.hearing.delete(stack);
      }
    };
  }
}

async function budgetsAsked(request: Request, parsed: unknown): Promise<string[]> {
  if (parsed !== undefined) return (parsed as { method?: unknown } | null)?.method === 'subscriptions/listen' ? alertsBudgetsOf(parsed) : [];
  try {
    const text = await request.clone().text();
    // Most requests are not listen streams: no second parse of their body.
    if (!text.includes('subscriptions/listen')) return [];
    const body: unknown = JSON.parse(text);
    return (body as { method?: unknown })?.method === 'subscriptions/listen' ? alertsBudgetsOf(body) : [];
  } catch {
    return [];
  }
}
