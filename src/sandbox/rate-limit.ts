/**
 * The service's request limit: per access token, N requests in a rolling hour. Answers how many
 * requests the token has made in the window (for the X-Rate-Limit header), or that it is spent.
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    private readonly clock: () => number,
    private readonly windowMs = 3_600_000,
  ) {}

  /** Counts one request; returns the count in the window including it, or the wait when refused. */
  take(key: string): { ok: true; used: number } | { ok: false; retryAfterSeconds: number } {
    const now = this.clock();
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    this.hits.set(key, list);
    if (list.length >= this.limit) {
      const retry = Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
      return { ok: false, retryAfterSeconds: retry };
    }
    list.push(now);
    return { ok: true, used: list.length };
  }
}
