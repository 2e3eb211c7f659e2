/**
 * The change-event bus behind `subscriptions/listen` streams when one HTTP endpoint serves many
 * users (hosted mode). The SDK's default bus hands every event to every open stream; a user's
 * server turning read-only must reach that user's streams only, not everyone's (the others would
 * list tools again for nothing, and would learn that someone's grant changed).
 *
 * A stream is tagged with the user whose request opened it: the request is served inside
 * `run(user, …)`, and the SDK subscribes a stream synchronously while serving that request, so
 * the user is the AsyncLocalStorage value at `subscribe`. `publishTo(user, …)` reaches only the
 * streams tagged with that user; `publish` (what the SDK's own `notify` calls) reaches all.
 */
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { contextSlot } from '../shared/async-context.js';

type Listener = (event: ServerEvent) => void;

export class UserScopedBus implements ServerEventBus {
  private readonly current = contextSlot<string>('bus user');
  private readonly listeners = new Map<Listener, string | undefined>();

  constructor(private readonly onerror?: (e: Error) => void) {}

  /** Serves `fn` (one request) as `user`: streams it opens are that user's. */
  run<T>(user: string, fn: () => T): T {
    return this.current.run(user, fn);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.set(listener, this.current.getStore());
    return () => void this.listeners.delete(listener);
  }

  publish(event: ServerEvent): void {
    this.deliver(event, () => true);
  }

  /** Delivers `event` to the streams `user` opened, and no others. */
  publishTo(user: string, event: ServerEvent): void {
    this.deliver(event, (owner) => owner === user);
  }

  private deliver(event: ServerEvent, to: (owner: string | undefined) => boolean): void {
    for (const [listener, owner] of [...this.listeners]) {
      if (!to(owner)) continue;
      try {
        listener(event);
      } catch (e) {
        this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      }
    }
  }
}
