/**
 * The API client: one `call(operationId, args)` for every operation of the table. Each real
 * HTTP request, retries included, first takes a slot in the token's request ledger; answers
 * reconcile the ledger with X-Rate-Limit; a 429 blocks the token until the window frees a slot
 * (never a blind retry); while the ledger is cold, one request goes out first and the others
 * wait for its answer (src/quota/cold-start.ts). Reads are retried on connection failures,
 * timeouts, 500 and 503 with exponential backoff and jitter (at most three attempts); writes are
 * never retried here, because a lost answer does not say whether the write happened (see the
 * write coordinator).
 */
import { memberName, operation, type Era, type Operation, type OperationId } from '../operations/index.js';
import { buildPath } from '../paths.js';
import { QUERY_PARAMS, type QueryName } from '../query.js';
import type { RequestLedger } from './request-ledger.js';
import { parseRateLimitHeader } from './rate-limit-header.js';
import { ApiError, NetworkError, QuotaExhaustedError, ReadOnlyError, scrub } from './errors.js';
import { Transport, type TransportOptions } from './transport.js';

export interface TokenProvider {
  /** The token to use now (an OAuth provider refreshes an expiring token first). */
  token(): Promise<string>;
  /** After a 401 with `failed`: true when a different token is now available to retry with. */
  renewAfterUnauthorized?(failed: string): Promise<boolean>;
}

export interface CallArgs {
  params?: Record<string, string>;
  query?: Partial<Record<QueryName, unknown>>;
  body?: unknown;
}

export interface CallResult {
  status: number;
  /** The `data` member, with member names of the operations table (plans era). */
  data: Record<string, any>;
}

export interface ClientOptions<L extends RequestLedger = RequestLedger> {
  transport?: Transport | TransportOptions;
  credentials: TokenProvider;
  /** The request ledger of a token (a new OAuth token is a new bucket at the service). */
  quota: (token: string) => L;
  /**
   * Path prefix the client speaks: /plans by default, the current description that the operations
   * table models. Under /budgets the service answers some operations as its 1.76 description did
   * (a month's transactions as hybrid rows, no since_date default), which the table does not.
   */
  era?: Era;
  readOnly?: boolean;
  /** Told when the service says the token's scope is read-only (403.3). */
  onReadOnlyScope?: () => void;
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const RETRYABLE_STATUS = new Set([500, 503]);

/**
 * Recording what an answer said must not cost the answer (a write's above all): a ledger that
 * cannot be written refuses the next acquire anyway, with its path.
 */
const ignoreSettle = (): void => undefined;

/** The slot a ledger of type L hands out. */
type Slot<L extends RequestLedger> = Awaited<ReturnType<L['acquireForRequest']>>;

/** A request's slot taken ahead (YnabClient.slotAhead). */
export interface SlotAhead<S = unknown> {
  /** The token and slot, the first time (call() uses them); undefined after. */
  take(): Promise<{ token: string; slot: S }> | undefined;
  /** Gives it back unused (nothing once taken). */
  drop(): Promise<void>;
}

export class YnabClient<L extends RequestLedger = RequestLedger> {
  readonly transport: Transport;
  readonly era: Era;
  private readOnlyMode: boolean;
  /** Every token this client has used: every string of every answer is scrubbed with them. */
  private readonly seenTokens: string[] = [];
  private lastToken: string | undefined;

  constructor(private readonly opts: ClientOptions<L>) {
    this.transport = opts.transport instanceof Transport ? opts.transport : new Transport(opts.transport);
    this.era = opts.era ?? 'plans';
    this.readOnlyMode = opts.readOnly ?? false;
  }

  get readOnly(): boolean {
    return this.readOnlyMode;
  }

  /** Every token this client has used, so that no message can carry one. */
  secrets(): string[] {
    return [...this.seenTokens];
  }

  /** The request ledger of the token used last, without asking for a token (which could refresh one). */
  currentLedger(): L | undefined {
    return this.lastToken === undefined ? undefined : this.opts.quota(this.lastToken);
  }

  scrub(text: string): string {
    return scrub(text, this.seenTokens);
  }

  /**
   * Takes the slot of `id`'s request now, beside other work (a create's intent: src/sync/creates.ts),
   * so that both reach the store in one round trip; call() given it uses it for its first attempt.
   */
  slotAhead(id: OperationId): SlotAhead<Slot<L>> {
    const taken = (async () => {
      const token = await this.opts.credentials.token();
      return { token, slot: (await this.opts.quota(token).acquireForRequest(operation(id).access)) as Slot<L> };
    })();
    taken.catch(ignoreSettle); // the caller meets it when it takes it
    let used = false;
    return {
      take: () => (used ? undefined : ((used = true), taken)),
      drop: async () => {
        if (used) return;
        used = true;
        const t = await taken.catch(() => undefined);
        // Settled as not answered: it stays counted (erring on the safe side), and a cold start's probe ends.
        if (t?.slot.ok) await this.opts.quota(t.token).settle(t.slot, { answered: false, header: null }).catch(ignoreSettle);
      },
    };
  }

  async call(id: OperationId, args: CallArgs = {}, ahead?: SlotAhead<Slot<L>>): Promise<CallResult> {
    const op = operation(id);
    if (op.access === 'write' && this.readOnlyMode) {
      throw new ReadOnlyError(`${op.tool.name} changes the budget, and this server is in read-only mode`);
    }
    // Its arguments were checked by the service that made the call (../argument-check.ts);
    // paths.ts still refuses a path parameter that would change the address.
    const path = buildPath(op, this.era, args.params ?? {});
    const query: Record<string, string> = {};
    for (const name of op.query) {
      const value = args.query?.[name];
      if (value !== undefined && value !== null) query[name] = (QUERY_PARAMS[name].toWire as (v: unknown) => string)(value);
    }
    const attempts = op.access === 'read' ? (this.opts.retry?.attempts ?? 3) : 1;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const early = attempt === 1 ? await ahead?.take() : undefined;
      const token = early?.token ?? (await this.opts.credentials.token());
      if (!this.seenTokens.includes(token)) this.seenTokens.push(token);
      this.lastToken = token;
      const ledger = this.opts.quota(token);
      const slot = early?.slot ?? (await ledger.acquireForRequest(op.access));
      if (!slot.ok) throw new QuotaExhaustedError(slot.nextSlotAt, slot.message);
      let res;
      try {
        res = await this.transport.request({ method: op.method, path, query, body: args.body, token });
      } catch (e) {
        await ledger.settle(slot, { answered: false, header: null }).catch(ignoreSettle);
        if (e instanceof NetworkError && e.failure !== 'tls' && attempt < attempts) {
          await this.backoff(attempt);
          continue;
        }
        throw e;
      }
      const header = parseRateLimitHeader(res.headers['x-rate-limit']);
      await ledger.settle(slot, { answered: true, header, rateLimited: res.status === 429 }).catch(ignoreSettle);
      if (res.status >= 200 && res.status < 300) return { status: res.status, data: this.normalize(op, res.body) };
      const error = this.apiError(res.status, res.body, res.headers['retry-after']);
      if (res.status === 401 && !renewed && this.opts.credentials.renewAfterUnauthorized && (await this.opts.credentials.renewAfterUnauthorized(token))) {
        renewed = true;
        continue;
      }
      if (res.status === 429) {
        await ledger.recordRateLimited(error.retryAfterSeconds);
        throw error;
      }
      if (error.isReadOnlyScope) {
        this.readOnlyMode = true;
        this.opts.onReadOnlyScope?.();
      }
      if (RETRYABLE_STATUS.has(res.status) && attempt < attempts) {
        await this.backoff(attempt);
        continue;
      }
      throw error;
    }
  }

  private normalize(op: Operation, body: unknown): Record<string, any> {
    const data = ((body as { data?: Record<string, unknown> })?.data ?? {}) as Record<string, unknown>;
    if (this.era === 'plans' || !op.legacyMembers) return data;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(op.data.shape)) {
      const wire = memberName(op, key, this.era);
      if (wire in data) out[key] = data[wire];
    }
    return out;
  }

  private apiError(status: number, body: unknown, retryAfter: string | undefined): ApiError {
    const e = (body as { error?: { id?: unknown; name?: unknown; detail?: unknown } })?.error;
    const seconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    if (e && typeof e === 'object') {
      return new ApiError(status, String(e.id ?? status), String(e.name ?? 'error'), this.scrub(String(e.detail ?? '')), seconds);
    }
    const at = `${this.transport.baseUrl.origin}${this.transport.baseUrl.pathname.replace(/\/$/, '')}`;
    return new ApiError(status, String(status), 'unexpected_response', `${at} answered HTTP ${status} without a YNAB error body`, seconds);
  }

  private backoff(attempt: number): Promise<void> {
    const base = this.opts.retry?.baseDelayMs ?? 250;
    const max = this.opts.retry?.maxDelayMs ?? 4_000;
    const ceiling = Math.min(max, base * 2 ** (attempt - 1));
    const delay = Math.round(ceiling / 2 + (this.opts.random ?? Math.random)() * (ceiling / 2));
    return (this.opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(delay);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
