/**
 * The per-token request ledger: the policy that keeps every ynab-mcp process of this machine
 * together under the API's limit of 200 requests per token per rolling hour.
 *
 *  - Every real HTTP request (retries included) takes a slot with `acquire()` first; replica
 *    hits don't. A slot is the request's time; it frees `windowMs` after it.
 *  - Reads may not take the last `writeReserve` slots, so a budget edit can still go out when
 *    reads have used up the hour.
 *  - After a 429, `recordRateLimited()` blocks everyone (the block is in the shared file) until
 *    the window must have freed a slot.
 *  - `reconcile()` aligns the ledger with the server's own count from X-Rate-Limit, which also
 *    covers requests made with the same token elsewhere.
 *  - Cold start: until an answer has reconciled the ledger in the current window, the service
 *    may have counted requests made elsewhere that this ledger cannot know. Then the client's
 *    `acquireForRequest()` lets one request out (the probe) and makes every other caller, in
 *    this process and in any other sharing the store, wait for its answer (see cold-start.ts).
 *  - Nothing in the ledger may reach beyond now + window: a request time or a block dated later
 *    is bogus (a clock that jumped, a planted file) and is dropped, so no file can stall the
 *    token for longer than the window.
 * The ledger is keyed by a hash of the token; the token itself is never stored or kept.
 */
import { createHash } from 'node:crypto';
import { FileStateStore } from '../storage/file-store.js';
import type { StateStore } from '../storage/store.js';
import { ColdStart } from './cold-start.js';
import type { AcquireResult, RequestSlot } from './slot.js';
import type { SettleOutcome, SlotRefused } from '../api/client/request-ledger.js';
import { formatNextSlot, formatUtcMinute, formatWait } from './format.js';
import { type LedgerState, LedgerStore, MAX_ENTRIES } from './store.js';
import { checkWatchShare, DEFAULT_WATCH_SHARE, isWatcher, watchRefusal, watchRoomOf, type WatchRoom } from './watch-share.js';

export const DEFAULT_LIMIT = 200;
export const DEFAULT_WINDOW_MS = 3_600_000;
export const DEFAULT_WRITE_RESERVE = 10;

export type { RequestKind } from '../api/client/request-ledger.js';
import type { RequestKind } from '../api/client/request-ledger.js';

export interface QuotaOptions {
  /** The state directory (src/paths.ts `stateDir()`); the ledger goes to `<stateDir>/quota/`. */
  stateDir?: string;
  /** Where the ledger is kept instead (hosted mode: Redis); default a file store on `stateDir`. */
  store?: StateStore;
  /** Requests per window until the server announces its own limit. Default 200. */
  limit?: number;
  /** Length of the rolling window. Default one hour. */
  windowMs?: number;
  /** Slots only writes may use. Default 10; never more than half the limit, so reads keep a share. */
  writeReserve?: number;
  /** Clock in ms since the epoch; injectable for tests. */
  now?: () => number;
  /** Where a recovered corrupt ledger is reported. Default: one line on stderr. */
  warn?: (message: string) => void;
  /** How long a cold-start probe holds others back without its holder renewing it. Default 15 s. */
  probeTtlMs?: number;
  /** The interval watcher's share of the limit (watch-share.ts): default 0.1, at most 0.25. */
  watchShare?: number;
}

export type { AcquireResult } from './slot.js';

export interface QuotaStatus {
  /** Effective limit: the server's, once announced, else the configured one. */
  limit: number;
  /** Requests counted in the current window. */
  used: number;
  /** Requests (of any kind) that may go out now; 0 while blocked. */
  remaining: number;
  /** Reads that may go out now; 0 while blocked. */
  readRemaining: number;
  /** When a request can go out again if none can now (`remaining` is 0); otherwise null. */
  nextSlotAt: Date | null;
  /** The end of a block after a 429, if one is in force. */
  blockedUntil: Date | null;
}

/** The ledger key of a token: a truncated sha256, domain-separated so it matches no other use of the token's hash. */
export function tokenKey(token: string): string {
  return createHash('sha256').update(`ynab-mcp/quota/v1\n${token}`).digest('hex').slice(0, 24);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

export class QuotaLedger {
  /** Hash of the token; also the ledger file's name. */
  readonly key: string;
  /** The ledger file (for diagnostics; contains no secret). */
  readonly file: string;
  private readonly store: LedgerStore;
  private readonly coldStart: ColdStart;
  private readonly warn: (message: string) => void;
  private readonly configuredLimit: number;
  private readonly windowMs: number;
  private readonly writeReserve: number;
  private readonly now: () => number;
  private readonly watchShare: number;

  private constructor(key: string, opts: QuotaOptions) {
    this.key = key;
    this.configuredLimit = positiveInteger('limit', opts.limit ?? DEFAULT_LIMIT);
    this.windowMs = positiveInteger('windowMs', opts.windowMs ?? DEFAULT_WINDOW_MS);
    const reserve = opts.writeReserve ?? DEFAULT_WRITE_RESERVE;
    if (!Number.isInteger(reserve) || reserve < 0) throw new RangeError('writeReserve must be a non-negative integer');
    this.writeReserve = reserve;
    this.now = opts.now ?? Date.now;
    this.watchShare = checkWatchShare(opts.watchShare ?? DEFAULT_WATCH_SHARE);
    const warn = opts.warn ?? ((message: string) => void process.stderr.write(`${message}\n`));
    this.warn = warn;
    if (!opts.store && !opts.stateDir) throw new TypeError('a state directory or a state store is required');
    const store = opts.store ?? new FileStateStore(opts.stateDir!, { warn, now: this.now });
    this.store = new LedgerStore(store, key, warn);
    this.file = this.store.location;
    this.coldStart = new ColdStart({
      store: this.store,
      now: this.now,
      windowMs: this.windowMs,
      probeTtlMs: opts.probeTtlMs ?? 15_000,
      prune: (state, now) => this.prune(state, now),
      take: (state, kind, now) => this.take(state, kind, now),
      reconcile: (state, used, limit, sentAt, now) => this.align(state, used, limit, sentAt, now),
    });
  }

  /** The ledger shared by every process using this token on this machine. The token is hashed at once and not kept. */
  static forToken(token: string, opts: QuotaOptions): QuotaLedger {
    if (typeof token !== 'string' || token.length === 0) throw new TypeError('an access token is required');
    return new QuotaLedger(tokenKey(token), opts);
  }

  /**
   * Takes a slot for one real HTTP request, or says why not and until when. Atomic across
   * processes: N concurrent callers against a window with k free slots get exactly k slots.
   */
  acquire(kind: RequestKind): Promise<AcquireResult> {
    return this.store.update<AcquireResult>((state) => {
      const now = this.now();
      const pruned = this.prune(state, now);
      const result = this.take(state, kind, now);
      return { result, changed: pruned || result.ok };
    });
  }

  /**
   * The slot for a real request, as the client takes it: like `acquire()`, but while the ledger is
   * cold (no answer has reconciled it in the current window) only one request goes out and every
   * other caller waits for its answer. The caller must `settle()` the slot with what came back.
   */
  acquireForRequest(kind: RequestKind): Promise<RequestSlot> {
    return this.coldStart.acquire(kind);
  }

  /**
   * Whether `requests` requests of a kind can go out one after another now, as a task that makes
   * many (fund_targets) asks before it starts; if not, when they can. Takes no slot.
   */
  async room(requests: number, kind: RequestKind): Promise<{ ok: true } | SlotRefused> {
    const state = await this.store.read();
    const now = this.now();
    this.prune(state, now);
    const limit = this.limitOf(state);
    const cap = kind === 'write' ? limit : limit - this.reserveFor(limit);
    const used = state.entries.length;
    if (state.blockedUntil === null && used + requests <= cap) return { ok: true };
    // The oldest requests must leave the window until these fit (never, beyond the limit itself).
    const leave = used + requests - cap;
    const freeAt = requests > cap ? Infinity : leave > 0 ? state.entries[leave - 1]! + this.windowMs : now;
    const nextSlotAt = new Date(Math.min(now + this.windowMs, Math.max(freeAt, state.blockedUntil ?? 0)));
    const when = `${formatUtcMinute(nextSlotAt)} UTC (in ${formatWait(nextSlotAt.getTime() - now)})`;
    const message = `it needs ${requests} requests and the hourly request limit has room for ${Math.max(0, cap - used)} now; it can run at ${when}`;
    return { ok: false, nextSlotAt, message };
  }

  /** The watcher's requests in the window, its cap, and when its next one fits if none does now; takes no slot. */
  async watchRoom(): Promise<WatchRoom> {
    const state = await this.store.read();
    this.prune(state, this.now());
    return watchRoomOf(state.watch, this.limitOf(state), this.watchShare, this.windowMs, this.now());
  }

  /** Tells the ledger what the request of `slot` brought back: reconciles it and ends a probe. */
  settle(slot: RequestSlot, outcome: SettleOutcome): Promise<void> {
    return this.coldStart.settle(slot, outcome);
  }

  /** Takes a slot in `state` (already pruned) if the policy allows one now. */
  private take(state: LedgerState, kind: RequestKind, now: number): AcquireResult {
    const limit = this.limitOf(state);
    const cap = kind === 'write' ? limit : limit - this.reserveFor(limit);
    const used = state.entries.length;
    const blocked = state.blockedUntil !== null;
    if (blocked || used >= cap) {
      const freeAt = used >= cap ? this.freeAt(state, cap) : now;
      const nextSlotAt = new Date(Math.max(freeAt, state.blockedUntil ?? freeAt));
      const reason = blocked ? 'blocked' : used >= limit ? 'limit' : 'reserve';
      return { ok: false, reason, nextSlotAt, message: this.refusal(reason, nextSlotAt, now, limit) };
    }
    const share = isWatcher() ? watchRefusal(state.watch, limit, this.watchShare, this.windowMs, now) : undefined;
    if (share) return share;
    insertSorted(state.entries, now);
    if (isWatcher()) state.watch.push(now);
    return { ok: true, used: used + 1, remaining: limit - used - 1, at: now };
  }

  /**
   * After a 429: no request goes out until the window has freed a slot, i.e. until
   * max(now + Retry-After, oldest counted request + window). With nothing counted (the
   * token is used elsewhere) and no Retry-After, the safe bound is a whole window. A Retry-After
   * beyond the window is capped at it: the window is the service's own rule.
   */
  recordRateLimited(retryAfterSeconds?: number): Promise<void> {
    return this.store.update((state) => {
      const now = this.now();
      this.prune(state, now);
      const candidates: number[] = [];
      if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
        candidates.push(now + Math.min(this.windowMs, Math.ceil(retryAfterSeconds * 1000)));
      }
      const oldest = state.entries[0];
      if (oldest !== undefined) candidates.push(oldest + this.windowMs);
      if (candidates.length === 0) candidates.push(now + this.windowMs);
      state.blockedUntil = Math.max(state.blockedUntil ?? 0, ...candidates);
      return { result: undefined, changed: true };
    });
  }

  /**
   * Aligns the ledger with a response's `X-Rate-Limit: used/limit`. `sentAt` (the `at` of the
   * acquire for that request) restricts the comparison to slots taken up to that request:
   * slots taken later by concurrent requests are not in the server's count yet and are kept.
   * Missing requests are added at `sentAt` (the latest they can have been made, so they free
   * no earlier than they really do); surplus ones are dropped oldest first. Invalid input is ignored.
   */
  reconcile(used: number, limit: number, sentAt?: number): Promise<void> {
    return this.store.update((state) => {
      const now = this.now();
      const pruned = this.prune(state, now);
      return { result: undefined, changed: this.align(state, used, limit, sentAt, now) || pruned };
    });
  }

  /** The body of `reconcile()` on a pruned state; true if it changed anything. */
  private align(state: LedgerState, used: number, limit: number, sentAt: number | undefined, now: number): boolean {
    let changed = false;
    if (Number.isInteger(limit) && limit >= 1 && limit !== this.limitOf(state)) {
      state.limit = limit;
      changed = true;
    }
    if (!Number.isInteger(used) || used < 0) return changed;
    const cutoff = sentAt ?? now;
    const counted = state.entries.filter((t) => t <= cutoff);
    const later = state.entries.filter((t) => t > cutoff);
    const target = Math.min(used, MAX_ENTRIES - later.length);
    if (target === counted.length) return changed;
    const aligned =
      target > counted.length
        ? [...counted, ...new Array<number>(target - counted.length).fill(Math.min(cutoff, now))]
        : counted.slice(counted.length - target);
    state.entries = [...aligned, ...later].sort((a, b) => a - b);
    return true;
  }

  /** The ledger as it stands (read without locking; the file is replaced atomically). */
  async status(): Promise<QuotaStatus> {
    const state = await this.store.read();
    const now = this.now();
    this.prune(state, now);
    const limit = this.limitOf(state);
    const used = state.entries.length;
    const blocked = state.blockedUntil !== null;
    const remaining = blocked ? 0 : Math.max(0, limit - used);
    const readRemaining = blocked ? 0 : Math.max(0, limit - this.reserveFor(limit) - used);
    let nextSlotAt: Date | null = null;
    if (remaining === 0) {
      const freeAt = used >= limit ? this.freeAt(state, limit) : now;
      nextSlotAt = new Date(Math.max(freeAt, state.blockedUntil ?? freeAt));
    }
    const blockedUntil = state.blockedUntil === null ? null : new Date(state.blockedUntil);
    return { limit, used, remaining, readRemaining, nextSlotAt, blockedUntil };
  }

  /**
   * Drops slots that have left the window and a block that has ended; true if anything changed.
   * Anything dated beyond now + window cannot have been written by a ledger on this clock: it is
   * dropped, with a warning. Slots a little in the future (clocks of two machines differ) count
   * as taken now, so that none holds a slot for longer than a window from now.
   */
  private prune(state: LedgerState, now: number): boolean {
    const horizon = now + this.windowMs;
    const before = state.entries.length;
    const bogus = state.entries.filter((t) => t > horizon).length;
    let changed = false;
    state.entries = state.entries
      .filter((t) => t + this.windowMs > now && t <= horizon)
      .map((t) => {
        if (t <= now) return t;
        changed = true;
        return now;
      });
    changed ||= state.entries.length !== before;
    const watched = state.watch.length;
    state.watch = state.watch.filter((t) => t + this.windowMs > now && t <= horizon);
    changed ||= state.watch.length !== watched;
    if (state.blockedUntil !== null && (state.blockedUntil <= now || state.blockedUntil > horizon)) {
      if (state.blockedUntil > horizon)
        this.warn(
          `ynab-mcp: the request ledger ${this.file} held a block until ${new Date(state.blockedUntil).toISOString()}, beyond the one-hour window; it was dropped`,
        );
      state.blockedUntil = null;
      changed = true;
    }
    if (bogus) this.warn(`ynab-mcp: the request ledger ${this.file} held ${bogus} request time(s) beyond now + the window; they were dropped`);
    if (state.reconciledAt !== null && state.reconciledAt > horizon) {
      state.reconciledAt = null;
      changed = true;
    }
    return changed;
  }

  private limitOf(state: LedgerState): number {
    return state.limit ?? this.configuredLimit;
  }

  private reserveFor(limit: number): number {
    return Math.min(this.writeReserve, Math.floor(limit / 2));
  }

  /** When the count drops below `cap`: the window must lose `used - cap + 1` slots, oldest first. */
  private freeAt(state: LedgerState, cap: number): number {
    const index = state.entries.length - cap;
    const entry = state.entries[Math.max(0, index)];
    // entries is non-empty whenever used >= cap >= 1; cap is 0 only for a limit of 0, which is rejected.
    return entry === undefined ? this.now() : entry + this.windowMs;
  }

  private refusal(reason: 'limit' | 'reserve' | 'blocked', nextSlotAt: Date, now: number, limit: number): string {
    if (reason === 'limit') return `the hourly request limit is spent; ${formatNextSlot(nextSlotAt, now)}`;
    if (reason === 'blocked') return `the API refused a request for exceeding the hourly request limit; ${formatNextSlot(nextSlotAt, now)}`;
    const kept = `the last ${this.reserveFor(limit)} requests are kept for changes`;
    return `the hourly request limit for reads is spent (${kept}); ${formatNextSlot(nextSlotAt, now, 'read')}`;
  }
}

function insertSorted(entries: number[], t: number): void {
  let i = entries.length;
  while (i > 0 && (entries[i - 1] ?? 0) > t) i -= 1;
  entries.splice(i, 0, t);
}
