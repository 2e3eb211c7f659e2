/**
 * What the client needs from a token's request ledger: a slot before every request (retries
 * included), and what the answer said after it. The ledger itself (src/quota/ledger.ts, shared by
 * every process and instance through the state store) is wired in by the composition root; the
 * client depends only on this.
 */
import type { RateLimitHeader } from './rate-limit-header.js';

export type RequestKind = 'read' | 'write';

/** A refusal: no slot now, and when the same request can have one. */
export interface SlotRefused {
  ok: false;
  nextSlotAt: Date;
  /** For users, e.g. "the hourly request limit is spent; next request possible at … UTC (in 12 minutes)". */
  message: string;
}

export interface SettleOutcome {
  /** An answer came back (any status); false when the connection failed before one did. */
  answered: boolean;
  /** The answer's X-Rate-Limit, when it carried one. */
  header: RateLimitHeader | null;
  /** The answer was a 429. */
  rateLimited?: boolean;
}

export interface RequestLedger<Slot extends { ok: true } = { ok: true }> {
  acquireForRequest(kind: RequestKind): Promise<Slot | SlotRefused>;
  /** Every slot acquired is settled once, with what came back. */
  settle(slot: Slot | SlotRefused, outcome: SettleOutcome): Promise<void>;
  /** Whether `requests` requests can go out now, one after another (none is taken); if not, when. */
  room?(requests: number, kind: RequestKind): Promise<{ ok: true } | SlotRefused>;
  /** After a 429: nothing goes out until the service's window frees a slot. */
  recordRateLimited(retryAfterSeconds?: number): Promise<void>;
}
