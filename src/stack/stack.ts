/**
 * Assembles the client side from configuration: transport, one request ledger per token, replicas
 * persisted under the token's identity, create records, and the service. Everything kept between
 * calls goes through one state store: by default files in the state directory, shared by every
 * process of this user; hosted mode passes a Redis store instead and nothing else changes.
 */
import { afterAnswer } from '../sync/after-answer.js';
import { KeyUnavailableError } from '../storage/store.js';
import { collectOnce } from '../sync/collect.js';
import type { BudgetReplica } from '../sync/replica.js';
import { readFor } from '../writes/pipeline/reads.js';
import { join } from 'node:path';
import { YnabClient, type TokenProvider } from '../api/client/client.js';
import type { TransportOptions } from '../api/client/transport.js';
import type { Era } from '../api/operations/index.js';
import { openSecretStore } from '../auth/secret-store.js';
import { configDir as defaultConfigDir, stateDir as defaultStateDir } from '../paths.js';
import { QuotaLedger, tokenKey } from '../quota/ledger.js';
import { ClosingGate, StoreClosedError } from '../storage/closing.js';
import { FileStateStore } from '../storage/file-store.js';
import type { StateStore } from '../storage/store.js';
import { segment } from '../storage/keys.js';
import { CreateRecords } from '../sync/create-records.js';
import { ReplicaManager, type ReplicaManagerOptions, type SharedReplicas } from '../sync/manager.js';
import { UndoJournal } from '../writes/pipeline/undo-journal.js';
import type { RehearsalSource } from '../writes/pipeline/pipeline.js';
import { RULES_MAGIC, RuleStore } from '../rules/store.js';
import { EVENTS_MAGIC } from '../events/log.js';
import { EventsService } from '../events/service.js';
import { Webhooks, type WebhookOptions } from '../events/webhooks.js';
import { watcherOf } from './stack-watcher.js';
import type { BudgetWatcher } from '../events/watcher.js';
import type { WatchSettings } from '../events/watcher-loop.js';

const WEBHOOKS_MAGIC = Buffer.from('YMCPW1\n');
import { ConfirmTokens } from '../writes/pipeline/confirm-tokens.js';
import { fileKey, ReplicaFiles, secretKey, type KeySource } from '../sync/persist.js';
import { ephemeralKey, Sealer } from '../sync/seal.js';
import { DEFAULT_WATCH_INTERVAL_MS, tickOf } from '../events/watcher-loop.js';
import { YnabService, type SharedAnswers } from '../sync/service.js';

export interface StackOptions {
  /** The interval watcher: interval, share of the hour, its metrics' hooks (src/events/watcher.ts). */
  watch?: WatchSettings;
  /** Told of each occurrence recorded, by type (metrics: events_detected_total). */
  onDetected?: (name: string) => void;
  /** Told of each webhook delivery attempt's outcome (metrics: webhook_deliveries_total). */
  onWebhookDelivery?: (outcome: string) => void;
  /** Webhook delivery: loopback allowed (else YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK=1), the DNS seam, retry waits. */
  webhooks?: WebhookOptions;
  /** YNAB credentials: where the access token comes from. */
  credentials: TokenProvider;
  /** A stable name for whose data this is (survives token refreshes); defaults to a hash of the token. */
  identity?: () => Promise<string>;
  baseUrl?: string;
  era?: Era;
  readOnly?: boolean;
  onReadOnlyScope?: () => void;
  stateDir?: string;
  /** Where ledgers, saved replicas and create records are kept; default a file store on `stateDir`. */
  store?: StateStore;
  configDir?: string;
  maxStalenessMs?: number;
  maxReplicaBytes?: number;
  /** Where replicas are held instead of an LRU of maxReplicaBytes of their own (hosted mode: one cache per instance). */
  replicaCache?: ReplicaManagerOptions['cache'];
  quotaLimit?: number;
  writeReserve?: number;
  /** How many changes of a budget the undo journal keeps (default 100; a rehearsal's: writes/rehearsal/changes.ts). */
  changesKept?: number;
  /** Save replicas to the state directory (default true). */
  persist?: boolean;
  keySource?: KeySource;
  log?: (line: string) => void;
  onRequest?: TransportOptions['onRequest'];
  /** Hosted mode's admission: waits on YNAB (and on another caller's sync) hand the request's slot on. */
  aside?: TransportOptions['aside'];
  /** Hosted mode: runs work no caller waits for (a sync's alerts scan) when the instance is quiet (src/transport/background.ts). */
  background?: <T>(job: () => Promise<T>) => Promise<T>;
  /** Told how each answer's budget copy was had (hit, saved, miss): for metrics. */
  onReplicaCache?: ReplicaManagerOptions['onCache'];
  onReplicaCatchUp?: ReplicaManagerOptions['onCatchUp'];
  /** Backoff between attempts (reads and write recovery); tests shorten it. */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /**
   * Hosted mode: the store is shared by instances. Replicas check the budget's written mark before
   * answering and sync one instance at a time (src/sync/manager.ts, SharedReplicas).
   */
  shared?: boolean;
  /** Hosted mode: answers outside the budget export, cached in the shared store (src/sync/service.ts). */
  sharedAnswers?: SharedAnswers;
  /** The clock of confirm tokens and the undo journal (tests move it past a token's validity). */
  now?: () => number;
  /** A rehearsal to apply to this budget (apply_rehearsal is offered only then: src/writes/rehearsal/). */
  rehearsal?: RehearsalSource;
}

export interface Stack {
  store: StateStore;
  client: YnabClient<QuotaLedger>;
  replicas: ReplicaManager;
  service: YnabService;
  /** Confirm tokens of held writes (src/writes/pipeline/confirm-tokens.ts). */
  confirmTokens: ConfirmTokens;
  /** The undo journal (src/writes/pipeline/undo-journal.ts). */
  changes: UndoJournal;
  /** The budgets' house rules, under the same identity (src/rules/store.ts). */
  rules: RuleStore;
  /** Alerts: what each sync detects, the occurrence logs, alert settings (src/events). */
  events: EventsService;
  /** Webhook subscriptions and their delivery (src/events/webhooks.ts). */
  webhooks: Webhooks;
  /** The interval watcher of the budgets someone listens to (src/events/watcher.ts). */
  watcher: BudgetWatcher;
  ledger(token: string): QuotaLedger;
  /** Once the detection of every sync so far, and the webhook deliveries it started, have ended. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The replica key: in the OS keychain when there is one, else in a 0600 file in the state directory. */
export function defaultKeySource(stateDir: string, configDir: string, warn: (line: string) => void): KeySource {
  let chosen: Promise<KeySource> | undefined;
  const choose = async (): Promise<KeySource> => {
    try {
      const store = await openSecretStore({ configDir, keychain: 'auto', warn: () => {} });
      if (store.kind === 'keychain')
        return secretKey(
          () => store.get('replica_key'),
          (v) => store.set('replica_key', v),
          `the OS keychain (${store.location})`,
        );
    } catch (e) {
      warn(`ynab-mcp: the keychain could not be used for the replica key (${(e as Error).message}); using a key file`);
    }
    return fileKey(join(stateDir, 'replica.key'), warn);
  };
  return { key: async () => (await (chosen ??= choose())).key() };
}

/**
 * A sync's alerts scan, after the copy's save and a turn, never beside it: at 100,000 transactions
 * each takes tens of MB while it runs, and run together their peaks added (issue 61). After the
 * first sync of a large budget, the export read's garbage is collected first (collect.ts).
 */
async function scanAfterSave(r: BudgetReplica, replicas: ReplicaManager, events: EventsService, log: (line: string) => void): Promise<void> {
  try {
    await replicas.saves();
    await new Promise((resolve) => setImmediate(resolve));
    // A copy built by a full export (not read from a saved copy): that export's garbage.
    if (!r.restored) collectOnce(r, r.transactions.size);
    await events.scan(r);
  } catch (e) {
    // A key that cannot be had is told once, by the copy's own save (persist.ts), not again here;
    // a scan the server's close cut short did not fail (issue 61: a line at every shutdown).
    if (!(e instanceof KeyUnavailableError) && !(e instanceof StoreClosedError)) log(`events: scan failed: ${(e as Error).message}`);
  }
}

/** Work started and not awaited (each sync's detection), for settled() to wait for. */
function pending(): { track(p: Promise<unknown>): void; settled(): Promise<void> } {
  const underWay = new Set<Promise<unknown>>();
  return {
    track(p) {
      underWay.add(p);
      void p.finally(() => underWay.delete(p)).catch(() => undefined);
    },
    async settled() {
      while (underWay.size) await Promise.allSettled([...underWay]);
    },
  };
}

/** One request ledger per token, made on its first request (the quota-gated client asks for it). */
function ledgersOf(store: StateStore, opts: StackOptions, log: (line: string) => void): (token: string) => QuotaLedger {
  const ledgers = new Map<string, QuotaLedger>();
  return (token) => {
    const key = tokenKey(token);
    let l = ledgers.get(key);
    if (!l)
      ledgers.set(
        key,
        (l = QuotaLedger.forToken(token, { store, limit: opts.quotaLimit, writeReserve: opts.writeReserve, warn: log, watchShare: opts.watch?.share })),
      );
    return l;
  };
}

export function createStack(opts: StackOptions): Stack {
  const state = opts.stateDir ?? defaultStateDir();
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Nothing reaches the store once close() has returned, not even from a call still running (closing.ts).
  const gate = new ClosingGate();
  const store = gate.store(opts.store ?? new FileStateStore(state, { warn: log }));
  const scans = pending();
  // Hosted: a sync's scan waits for the instance to be quiet; elsewhere it runs at once.
  const later = opts.background ?? (<T>(job: () => Promise<T>) => job());
  const ledger = ledgersOf(store, opts, log);
  const client = new YnabClient({
    transport: { baseUrl: opts.baseUrl ?? process.env.YNAB_BASE_URL, onRequest: opts.onRequest, aside: opts.aside },
    credentials: opts.credentials,
    quota: ledger,
    era: opts.era,
    readOnly: opts.readOnly,
    onReadOnlyScope: opts.onReadOnlyScope,
    retry: opts.retry,
  });
  const identity = opts.identity ?? (async () => tokenKey(await opts.credentials.token()));
  // One key seals everything kept that holds budget data: saved replicas, the undo journal, confirm
  // tokens, house rules. Without saved replicas (the sandbox, throwaway state) it lives only in this process;
  // instances sharing a store are given one key source they share (hosted mode: the data key's).
  const keySource = opts.keySource ?? (opts.persist === false ? ephemeralKey() : defaultKeySource(state, opts.configDir ?? defaultConfigDir(), log));
  // The key file may be written on first use: through the gate too.
  const keys: KeySource = { key: () => gate.run('the key that seals what is kept', 'read', () => keySource.key()) };
  const files = opts.persist === false ? undefined : new ReplicaFiles(store, keys, log);
  const createRecords = new CreateRecords(store, identity, Date.now, opts.shared === true);
  const shared: SharedReplicas | undefined = opts.shared
    ? {
        written: (budgetId) => createRecords.written(budgetId),
        writtenHere: (budgetId) => createRecords.writtenHere(budgetId),
        exclusive: async (budgetId, read, fn) => store.withLock(`sync-${segment(await identity())}-${segment(budgetId)}`, fn, { read }),
      }
    : undefined;
  const replicas = new ReplicaManager({
    client,
    tokenKey: identity,
    files,
    maxStalenessMs: opts.maxStalenessMs,
    maxBytes: opts.maxReplicaBytes,
    cache: opts.replicaCache,
    log,
    shared,
    onCache: opts.onReplicaCache,
    onCatchUp: opts.onReplicaCatchUp,
    aside: opts.aside,
    // Every sync with YNAB, interactive or the watcher's, feeds the events' detection (src/events);
    // a copy caught up from another instance's sync was scanned there (manager.ts doSync).
    // After the answer a write's read back is for (after-answer.ts), which need not wait for it.
    onSynced: (r) => scans.track(afterAnswer().then(() => later(() => scanAfterSave(r, replicas, events, log)))),
  });
  const events: EventsService = new EventsService({
    store,
    sealer: new Sealer(keys, EVENTS_MAGIC),
    identity,
    read: async (budget, purpose) => (await readFor(replicas, budget, purpose)).replica,
    now: opts.now,
    // Hosted: another instance may record a listened budget's occurrences (the watcher's lease).
    // Read as often as the watcher ticks (a quarter interval, at most 20 s).
    followMs: opts.shared ? tickOf(opts.watch?.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS) : undefined,
    log,
  });
  const webhooks = new Webhooks(events, store, new Sealer(keys, WEBHOOKS_MAGIC), identity, {
    allowLoopback: process.env.YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK === '1',
    ...opts.webhooks,
  });
  const room = async () => ledger(await opts.credentials.token()).watchRoom();
  const watch = watcherOf({ settings: opts.watch, store, identity, replicas, events, webhooks, log, room, hooks: opts });
  const service = new YnabService({ client, replicas, createRecords, writeRetryDelayMs: opts.retry?.baseDelayMs, log, sharedAnswers: opts.sharedAnswers });
  return {
    store,
    client,
    replicas,
    service,
    confirmTokens: new ConfirmTokens(store, keys, identity, opts.now),
    changes: new UndoJournal(store, keys, identity, opts.now, opts.changesKept),
    rules: new RuleStore(store, identity, opts.now, new Sealer(keys, RULES_MAGIC)),
    events,
    webhooks,
    watcher: watch.watcher,
    ledger,
    settled: () => scans.settled().then(() => webhooks.settled()),
    async close() {
      // The watcher first: a tick under way ends, and its leases are let go, before the store closes.
      await watch.stop();
      await replicas.flush();
      await client.close();
      await gate.close();
    },
  };
}
