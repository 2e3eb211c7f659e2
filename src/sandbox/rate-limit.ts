/**
 * The service's request limit: per access token, N requests in a rolling hour. Answers how many
 * requests the token has made in the window (for the X-Rate-Limit header), or that it is spent.
 *
 * Each token's request times are kept in the order they came, so expiring the ones that left the
 * window is dropping from the front: a request costs O(1) however many the hour holds (filtering
 * the whole list each time made a busy token's every request slower than the last). A clock that
 * steps back (a test's) only keeps entries a little longer than they need.
 */
interface Window {
  times: number[];
  /** Index of the oldest time still in the window. */
  head: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    private readonly clock: () => number,
    private readonly windowMs = 3_600_000,
  ) {}

  /** Counts one request; returns the count in the window including it, or the wait when refused. */
  take(key: string): { ok: true; used: number } | { ok: false; retryAfterSeconds: number } {
    const now = this.clock();
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = { times: [], head: 0 }));
    while (w.head < w.times.length && w.times[w.head]! <= now - this.windowMs) w.head += 1;
    // Drop the expired prefix once it is most of the array, so memory follows the window.
    if (w.head > 1024 && w.head * 2 > w.times.length) {
      w.times = w.times.slice(w.head);
      w.head = 0;
    }
    const used = w.times.length - w.head;
    if (used >= this.limit) {
      const retry = Math.max(1, Math.ceil((w.times[w.head]! + this.windowMs - now) / 1000));
      return { ok: false, retryAfterSeconds: retry };
    }
    w.times.push(now);
    return { ok: true, used: used + 1 };
  }
}
