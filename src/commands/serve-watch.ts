/**
 * `serve` after a restart: webhook subscriptions made before it are still in the state directory,
 * and their budgets are watched even before a client calls. A moment after start (a watcher tick,
 * so tools/list never waits for it), when the state directory holds any subscription, the stack is
 * started; its watcher (src/events/watcher.ts) does the rest. Without one, start stays as it was:
 * no credentials are looked up until the first call.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerState } from '../mcp/state/state.js';

const TICK_MS = 60_000;

async function hasSubscriptions(stateDir: string): Promise<boolean> {
  const identities = await readdir(join(stateDir, 'events')).catch(() => [] as string[]);
  for (const identity of identities) {
    const files = await readdir(join(stateDir, 'events', identity, 'webhooks')).catch(() => [] as string[]);
    if (files.some((f) => f.endsWith('.sub'))) return true;
  }
  return false;
}

/** Starts the stack a tick after start when subscriptions are waiting; returns the way to stop waiting. */
export function watchAfterStart(state: ServerState, stateDir: string | undefined, delayMs = TICK_MS): () => void {
  if (!stateDir) return () => {};
  const timer = setTimeout(() => {
    void hasSubscriptions(stateDir)
      .then((any) => (any ? state.ready() : undefined))
      .catch(() => undefined);
  }, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}
