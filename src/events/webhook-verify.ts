/**
 * The verification handshake, sent once per URL at a time and rate-limited per destination host
 * (SEP-3415, §Webhook security, Endpoint verification: "SHOULD be rate-limited per destination
 * host"). Subscribes of one principal to one URL that arrive while its handshake is under way
 * share that one POST and its outcome (20 at once sent 20 POSTs); another principal's handshake
 * to the same URL waits for it to end, then sends its own (its own secret: one principal's
 * verification never waives another's). A host that has had `max` handshakes in the last minute
 * gets none until one falls out of the window: the subscribe is refused as ResourceExhausted.
 * Kept in this process: in hosted mode each instance counts its own (docs/alerts.md).
 */

/** What a handshake came to: undefined when verified, a `lastError` category, or the wait before another may go to the host. */
export type Verified = undefined | string | { retryAfterMs: number };

const WINDOW_MS = 60_000;

export class VerifyGate {
  /** (principal, url) → its handshake under way. */
  private readonly inflight = new Map<string, Promise<Verified>>();
  /** url → the last handshake queued to it (each waits for the one before). */
  private readonly queue = new Map<string, Promise<unknown>>();
  /** host → when its handshakes in the window were sent. */
  private readonly sent = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `handshake` for (principal, url) unless one is under way (then shares it), after any other to the URL, within the host's rate. */
  run(principal: string, url: string, max: number, handshake: () => Promise<string | undefined>): Promise<Verified> {
    const key = JSON.stringify([principal, url]);
    const shared = this.inflight.get(key);
    if (shared) return shared;
    const mine = (this.queue.get(url) ?? Promise.resolve()).then((): Verified | Promise<Verified> => this.limited(new URL(url).hostname, max) ?? handshake());
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.inflight.set(key, mine);
    this.queue.set(url, settled);
    void settled.then(() => {
      if (this.inflight.get(key) === mine) this.inflight.delete(key);
      if (this.queue.get(url) === settled) this.queue.delete(url);
    });
    return mine;
  }

  /** Counts one handshake to `host`; the wait when the window already holds `max`. */
  private limited(host: string, max: number): { retryAfterMs: number } | undefined {
    const now = this.now();
    const recent = (this.sent.get(host) ?? []).filter((t) => t > now - WINDOW_MS);
    if (recent.length >= max) {
      this.sent.set(host, recent);
      return { retryAfterMs: recent[0]! + WINDOW_MS - now };
    }
    recent.push(now);
    this.sent.set(host, recent);
    return undefined;
  }
}

/** One gate per process: the rate is the destination host's, whichever user or session asks. */
export const verifyGate = new VerifyGate();
