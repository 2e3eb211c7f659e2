/**
 * Quota from a cold start. The service counts every request of a token, wherever it was made
 * (another machine, the phone app's sync uses its own token but a script may share ours). Until
 * an answer has told this ledger the service's count in the current window, the ledger may be
 * missing requests, and a burst of parallel first calls could run into a 429. So while the
 * ledger is cold:
 *  - the first caller takes a slot and the *probe*, recorded in the ledger itself, so that every
 *    process (and hosted instance) sharing the store sees it;
 *  - every other caller waits (it does not fail) until the probe is settled, then takes its slot
 *    from the reconciled ledger, which may by then be a refusal naming the next free slot;
 *  - the probe lapses if its holder stops renewing it (a crashed process), so no one waits long.
 * Settling: an answer with X-Rate-Limit reconciles the ledger and ends the cold start for the
 * window. An answer without the header (the real service dropped it in 2025) ends it as well:
 * with no count to learn, holding callers back teaches nothing, and the ledger's own count (plus
 * the block after a 429) is all there is. A 429 or a lost connection ends the probe without
 * ending the cold start, so the next waiter probes again (after the block, for a 429).
 */
import { randomBytes } from 'node:crypto';
import { pause, signal } from '../storage/wake.js';
import type { SettleOutcome } from '../api/client/request-ledger.js';
import type { AcquireResult, RequestSlot } from './slot.js';
import type { RequestKind } from '../api/client/request-ledger.js';

import type { LedgerState, LedgerStore } from './store.js';

interface Deps {
  store: LedgerStore;
  now: () => number;
  windowMs: number;
  probeTtlMs: number;
  prune(state: LedgerState, now: number): boolean;
  take(state: LedgerState, kind: RequestKind, now: number): AcquireResult;
  reconcile(state: LedgerState, used: number, limit: number, sentAt: number, now: number): boolean;
}

/** reconciledAt is refreshed at most this often, so a steady stream of answers costs no extra writes. */
const REFRESH_RECONCILED_MS = 60_000;

export class ColdStart {
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: Deps) {}

  private cold(state: LedgerState, now: number): boolean {
    return state.reconciledAt === null || state.reconciledAt + this.deps.windowMs <= now;
  }

  async acquire(kind: RequestKind): Promise<RequestSlot> {
    for (;;) {
      const outcome = await this.deps.store.update<{ slot: RequestSlot } | { waitUntil: number }>((state) => {
        const now = this.deps.now();
        let changed = this.deps.prune(state, now);
        if (state.probe && state.probe.until <= now) {
          state.probe = null; // its holder is gone
          changed = true;
        }
        const cold = this.cold(state, now);
        // A block after a 429 is answered at once: waiting for the probe would only end in it.
        if (cold && state.probe && state.blockedUntil === null) return { result: { waitUntil: state.probe.until }, changed };
        const slot = this.deps.take(state, kind, now);
        if (!slot.ok) return { result: { slot }, changed };
        if (!cold) return { result: { slot }, changed: true };
        const probe = randomBytes(8).toString('hex');
        state.probe = { id: probe, until: now + this.deps.probeTtlMs };
        return { result: { slot: { ...slot, probe } }, changed: true };
      });
      if ('slot' in outcome) {
        if (outcome.slot.ok && outcome.slot.probe) this.keepAlive(outcome.slot.probe);
        return outcome.slot;
      }
      await pause(this.deps.store.location, outcome.waitUntil - this.deps.now());
    }
  }

  async settle(slot: RequestSlot, outcome: SettleOutcome): Promise<void> {
    if (!slot.ok) return;
    const probe = slot.probe;
    if (!outcome.header && !probe) return; // nothing learnt, nothing held: no write
    if (probe) this.stopRenewing(probe);
    try {
      // A settle that changes nothing is judged on the ledger as this process last saw it, with no
      // read to confirm it (one round trip fewer after each answer): LedgerStore.settle.
      await this.deps.store.settle((state) => {
        const now = this.deps.now();
        let changed = this.deps.prune(state, now);
        const ours = probe !== undefined && state.probe?.id === probe;
        const learnt = outcome.header !== null || (ours && outcome.answered && !outcome.rateLimited);
        if (outcome.header) changed = this.deps.reconcile(state, outcome.header.used, outcome.header.limit, slot.at, now) || changed;
        if (learnt && (state.reconciledAt === null || now - state.reconciledAt > REFRESH_RECONCILED_MS || this.cold(state, now))) {
          state.reconciledAt = now;
          changed = true;
        }
        if (ours) {
          state.probe = null;
          changed = true;
        }
        return { result: undefined, changed };
      });
    } finally {
      signal(this.deps.store.location);
    }
  }

  /** Renews the probe while its request is out, so that only a dead holder lets it lapse. */
  private keepAlive(probe: string): void {
    const every = Math.max(50, Math.floor(this.deps.probeTtlMs / 3));
    const timer = setInterval(() => {
      void this.deps.store
        .update((state) => {
          if (state.probe?.id !== probe) return { result: undefined, changed: false };
          state.probe.until = this.deps.now() + this.deps.probeTtlMs;
          return { result: undefined, changed: true };
        })
        .catch(() => undefined); // a failed renewal only lets the probe lapse early
    }, every);
    timer.unref();
    this.renewals.set(probe, timer);
  }

  private stopRenewing(probe: string): void {
    clearInterval(this.renewals.get(probe));
    this.renewals.delete(probe);
  }
}
