/**
 * The one entry point for operations: tool → here → replica (fresh enough? answer) → quota-gated
 * client → API. Reads of the budget export are answered from replicas; the few reads outside it
 * (the user, the budget list, money movements) are cached by key for a while; writes go to the
 * API and their answers are merged into the replica.
 *
 * In hosted mode those cached answers live in the shared store instead of this process's memory
 * (`sharedAnswers`), so a repeated question costs no request whichever instance answers it, and a
 * write through one instance clears what every instance would answer about that budget.
 */
import { LRUCache } from 'lru-cache';
import { checkCallArguments } from '../api/argument-check.js';
import { QuotaExhaustedError } from '../api/client/errors.js';
import type { CallArgs, YnabClient } from '../api/client/client.js';
import { operation, type CacheClass, type OperationId } from '../api/operations/index.js';
import type { TransactionQuery } from '../api/read/transactions.js';
import type { ReplicaAnswerOptions } from './replica-reads.js';
import type { CreateRecords } from './create-records.js';
import type { Freshness, ReplicaManager } from './manager.js';
import { checkTransactionUpdate } from './transaction-updates.js';
import { WriteCoordinator } from './writes.js';

export interface CacheFreshness {
  source: 'api' | 'cache';
  synced_at: string;
  age_seconds: number;
  stale: boolean;
  notice?: string;
}

export interface ServiceResult {
  status: number;
  data: Record<string, any>;
  /** How fresh the answer is, for reads. */
  freshness?: Freshness | CacheFreshness;
  /** What happened on the way (a write whose answer was lost and what was done about it). */
  notices?: string[];
}

/** A call's options: a read's (replica-reads.ts), and for a write who awaits its records (writes.ts AfterWrite). */
export interface CallOptions extends ReplicaAnswerOptions {
  settle?: (records: Promise<void>) => void;
}

export interface ServiceOptions {
  client: YnabClient;
  replicas: ReplicaManager;
  /** The create records (creates by identity, knowledge of every write answer). */
  createRecords: CreateRecords;
  now?: () => number;
  log?: (line: string) => void;
  /** Pause before a write is checked or sent again (grows per attempt). */
  writeRetryDelayMs?: number;
  /** How long YNAB's answers are reused (ms), by the reads' cache class (api/operations/types.ts). */
  ttl?: Partial<Record<CacheClass, number>>;
  /** Hosted mode: the cached answers, shared by instances (see the header). */
  sharedAnswers?: SharedAnswers;
}

/** A cache of answers shared by instances; `budgetId` groups what a write to that budget makes old. */
export interface SharedAnswers {
  get(key: string, budgetId: string | undefined): Promise<CachedAnswer | undefined>;
  set(key: string, budgetId: string | undefined, answer: CachedAnswer, ttlMs: number): Promise<void>;
  /** Forgets the budget's answers and the budget list. */
  forget(budgetId: string): Promise<void>;
}

export type CachedAnswer = Cached;

interface Cached {
  status: number;
  data: Record<string, unknown>;
  at: number;
}

export class YnabService {
  private readonly cache: LRUCache<string, Cached>;
  private readonly now: () => number;
  private readonly writes: WriteCoordinator;

  constructor(private readonly opts: ServiceOptions) {
    this.now = opts.now ?? Date.now;
    const step = opts.writeRetryDelayMs ?? 100;
    this.writes = new WriteCoordinator(
      opts.client,
      opts.replicas,
      opts.createRecords,
      (attempt) => new Promise((r) => setTimeout(r, step * attempt)),
      opts.log,
    );
    this.cache = new LRUCache<string, Cached>({ max: 500, allowStale: false });
  }

  get client(): YnabClient {
    return this.opts.client;
  }

  get replicas(): ReplicaManager {
    return this.opts.replicas;
  }

  /** How long an answer of a class is reused: the user an hour, the budget list five minutes, a budget's data as long as its replica may be stale. */
  private ttlOf(cache: CacheClass): number {
    const t = this.opts.ttl ?? {};
    const defaults: Record<CacheClass, number> = { user: 3_600_000, budgets: 300_000, budget: this.opts.replicas.maxStalenessMs };
    return t[cache] ?? defaults[cache];
  }

  /**
   * `opts.lazyLists`: transaction lists answered from a replica may come as a LazyList (built
   * when shown), for callers that show a page of them (the tools' output builder).
   */
  async call(id: OperationId, args: CallArgs = {}, opts: CallOptions = {}): Promise<ServiceResult> {
    const op = operation(id);
    const params = args.params ?? {};
    // Every call, reads the replica answers too: a malformed id gets the same error as on the
    // wire. Once per call: one the write pipeline checked is not walked again (../api/argument-check.ts).
    checkCallArguments(op, args);
    if (op.access === 'write') {
      if (this.opts.client.readOnly) return this.opts.client.call(id, args); // refused, with the reason
      // Split edits the API cannot make are refused before anything is sent.
      const verify = await checkTransactionUpdate(id, args, this.opts.replicas);
      // Cached answers about the budget are forgotten once YNAB answered, in the same round trip
      // as the write's records (writes.ts), not in one of their own after them.
      const budget = params.budget_id;
      const res = await this.writes.write(id, args, { applied: budget ? () => this.forgetBudget(budget) : undefined, settle: opts.settle });
      if (budget) this.opts.replicas.applyWrite(budget, res.data);
      // What the service ignored is reported (or refused when nothing took effect).
      const report = verify?.(res.data);
      if (report?.notApplied.length)
        return { status: res.status, data: { ...res.data, not_applied: report.notApplied }, notices: [...res.notices, ...report.notices] };
      return { status: res.status, data: res.data, notices: res.notices };
    }
    if (op.read.replica && args.query?.last_knowledge_of_server === undefined) {
      const { data, freshness, notices } = await this.opts.replicas.read(params.budget_id!, id, params, (args.query ?? {}) as TransactionQuery, opts);
      return { status: op.status, data, freshness, ...(notices.length ? { notices } : {}) };
    }
    return this.cached(id, op.read.cache, args);
  }

  /** Reads the budget's create records ahead of a create's intent (the store remembers them; an error is the intent's to meet). */
  readCreateRecords(budgetId: string): void {
    this.opts.createRecords.read(budgetId).catch(() => undefined);
  }

  private async cached(id: OperationId, cache: CacheClass, args: CallArgs): Promise<ServiceResult> {
    const key = JSON.stringify([id, args.params ?? {}, args.query ?? {}]);
    const ttl = this.ttlOf(cache);
    const shared = this.opts.sharedAnswers;
    const budgetId = args.params?.budget_id;
    const hit = shared ? await shared.get(key, budgetId).catch(() => undefined) : this.cache.get(key);
    const now = this.now();
    if (hit && now - hit.at <= ttl) return { status: hit.status, data: hit.data, freshness: this.freshness('cache', hit.at) };
    try {
      const res = await this.opts.client.call(id, args);
      const answer = { status: res.status, data: res.data, at: now };
      if (shared)
        await shared
          .set(key, budgetId, answer, ttl)
          .catch((e: unknown) => this.opts.log?.(`ynab-mcp: could not share a cached answer: ${(e as Error).message}`));
      else this.cache.set(key, answer);
      return { ...res, freshness: this.freshness('api', now) };
    } catch (e) {
      if (hit && e instanceof QuotaExhaustedError) return { status: hit.status, data: hit.data, freshness: this.freshness('cache', hit.at, e.message) };
      throw e;
    }
  }

  private freshness(source: 'api' | 'cache', at: number, notice?: string): CacheFreshness {
    return {
      source,
      synced_at: new Date(at).toISOString(),
      age_seconds: Math.max(0, Math.round((this.now() - at) / 1000)),
      stale: notice !== undefined,
      ...(notice ? { notice } : {}),
    };
  }

  /** A write changed the budget: cached answers about it (money movements, the list's dates) are old. */
  private async forgetBudget(budgetId: string): Promise<void> {
    if (this.opts.sharedAnswers) {
      await this.opts.sharedAnswers
        .forget(budgetId)
        .catch((e: unknown) => this.opts.log?.(`ynab-mcp: could not clear shared answers: ${(e as Error).message}`));
      return;
    }
    for (const key of [...this.cache.keys()]) {
      const [id, params] = JSON.parse(key) as [OperationId, Record<string, string>];
      // The budget list shows when each budget last changed: any write makes it old.
      if (operation(id).read?.cache === 'budgets' || params.budget_id === budgetId) this.cache.delete(key);
    }
  }
}
