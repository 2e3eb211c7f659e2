/** What asking the ledger for a request's slot answers: a slot (which one, how many are left), or why not and until when. */

export type AcquireResult =
  | {
      ok: true;
      /** Requests in the window including this one. */
      used: number;
      /** Slots left for writes after this one (reads: `remaining - reserve`). */
      remaining: number;
      /** The slot's time (ledger clock); pass it to `reconcile()` as `sentAt`. */
      at: number;
    }
  | {
      ok: false;
      /** `limit`: the window is full; `reserve`: only the write reserve is left; `blocked`: after a 429; `watch`: the watcher's share is used up. */
      reason: 'limit' | 'reserve' | 'blocked' | 'watch';
      /** The earliest instant at which the same acquire can succeed. */
      nextSlotAt: Date;
      /** For users, e.g. "the hourly request limit is spent; next request possible at … UTC (in 12 minutes)". */
      message: string;
    };

export type RequestSlot =
  (Extract<AcquireResult, { ok: true }> & { /** Set when this request is the cold-start probe. */ probe?: string }) | Extract<AcquireResult, { ok: false }>;
