/**
 * Total time limits of webhook POSTs, whatever the receiver does. `timeout` on http.request is an
 * idle-socket timer that every byte resets: a receiver that answered 200 and then sent one byte a
 * second held a delivery open for over a minute, and a handshake held `events/subscribe` until the
 * transport's deadline. These cover the whole exchange: the name's lookup, the connection, TLS, the
 * answer's head and its body.
 */

/** One delivery attempt (an event or a control envelope): the SEP's "on the order of 5 seconds". */
export const DELIVERY_DEADLINE_MS = 5_000;

/** The verification handshake, answered while `events/subscribe` waits (its answer must be read whole). */
export const HANDSHAKE_DEADLINE_MS = 10_000;

/** How a handshake is sent (webhook-send.ts SendOptions). */
export const HANDSHAKE = { timeoutMs: HANDSHAKE_DEADLINE_MS, needAnswer: true };

/** A signal that aborts `ms` from now, and the way to stop its timer once the exchange has ended. */
export function deadline(ms: number): { signal: AbortSignal; clear(): void } {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('deadline')), ms);
  timer.unref?.();
  return { signal: ac.signal, clear: () => clearTimeout(timer) };
}

/** Resolves undefined when `signal` aborts: raced against a step that has no signal of its own (a DNS lookup). */
export function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => (signal.aborted ? resolve(undefined) : signal.addEventListener('abort', () => resolve(undefined), { once: true })));
}
