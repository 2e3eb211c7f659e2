/**
 * The create records of a budget (exactly once): what the creates of this server have in flight and what they
 * have made, shared through the state store by every process (and hosted instance) using it, so
 * that a create whose answer was lost is recovered by identity, not by resemblance.
 *  - knowledge: the highest server knowledge any of our write answers or recovery deltas carried.
 *    A create's baseline is the latest of it and its replica's: everything an earlier call of
 *    ours created is at or below it, so an earlier identical transaction is not in the delta a
 *    recovery reads at all.
 *  - intents: creates in flight, by fingerprint (account, date, amount: coarser than "identical",
 *    so that a payee given by name in one call and by id in another still counts as the same).
 *    An intent waits while another with a shared fingerprint is unresolved, so at most one
 *    intent of ours that could be confused with it is ever open. An intent lapses unless its
 *    owner renews it (a crashed process blocks no one for long).
 *  - claimed: ids that our calls created or reported, recently (bounded by age and count). A
 *    recovery never claims one of them, even when an entity of ours changed after the baseline.
 * The records hold ids, knowledge numbers and hashed fingerprints: no budget text, no amounts.
 *
 * With `trackWritten` (hosted mode), the highest knowledge is also kept in a small key of its own
 * (`<budget>.written`), which every instance reads before answering from a replica it holds, so
 * that a user reads their own writes whichever instance serves them (see ReplicaManager.shared).
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { journalKey, writtenKey } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';
import { pause, signal } from '../storage/wake.js';

interface Intent {
  id: string;
  /** Who holds it (host and process), for diagnostics. */
  owner: string;
  fingerprints: string[];
  until: number;
}

interface JournalState {
  knowledge: number;
  intents: Intent[];
  claimed: { id: string; at: number }[];
}

const VERSION = 1;
/** An intent lapses this long after its last renewal. */
const INTENT_TTL_MS = 30_000;
/** Claimed ids are remembered this long, and at most this many: far longer than any recovery takes. */
const CLAIM_TTL_MS = 7 * 86_400_000;
const MAX_CLAIMED = 5_000;
/** How long an intent waits for an identical one before it gives up with a clear error. */
const MAX_WAIT_MS = 10 * 60_000;

const OWNER = `${hostname()}:${process.pid}`;

export class CreateRecordsBusyError extends Error {
  override readonly name = 'CreateRecordsBusyError';
}

/** The fingerprint an intent is serialised by: a hash, so the records hold no amounts or dates. */
export function fingerprint(...parts: unknown[]): string {
  return createHash('sha256')
    .update(`ynab-mcp/intent/v1\n${parts.map((p) => String(p ?? '')).join('\n')}`)
    .digest('hex')
    .slice(0, 20);
}

function parse(bytes: Uint8Array | undefined): JournalState {
  const doc = parseJsonBytes(bytes) as Record<string, unknown> | undefined;
  const empty: JournalState = { knowledge: 0, intents: [], claimed: [] };
  if (!doc || typeof doc !== 'object' || doc.v !== VERSION) return empty;
  const knowledge = Number.isSafeInteger(doc.knowledge) && (doc.knowledge as number) >= 0 ? (doc.knowledge as number) : 0;
  const intents = Array.isArray(doc.intents)
    ? (doc.intents as Intent[]).filter((i) => i && typeof i.id === 'string' && Array.isArray(i.fingerprints) && Number.isFinite(i.until))
    : [];
  const claimed = Array.isArray(doc.claimed)
    ? (doc.claimed as JournalState['claimed']).filter((c) => c && typeof c.id === 'string' && Number.isFinite(c.at))
    : [];
  return { knowledge, intents, claimed };
}

function serialize(state: JournalState): Uint8Array {
  return jsonBytes({ v: VERSION, ...state });
}

/** An open intent: its baseline, and the means to renew and end it. */
export interface OpenIntent {
  readonly budgetId: string;
  /** Knowledge before this create can have reached the service. */
  readonly baseline: number;
  /** Ids our calls created or reported, as the records held them when the intent opened (refreshed by `claimed()`). */
  claimed(): Promise<Set<string>>;
  /** Records knowledge and ids learnt on the way (a recovery delta), keeping the intent open. */
  record(knowledge: number | undefined, ids: string[]): Promise<void>;
  /** Ends the intent, recording what its call learnt: the answer's knowledge, the ids it created or reported. */
  end(knowledge: number | undefined, ids: string[]): Promise<void>;
}

export class CreateRecords {
  /** The written mark of each budget as this process last moved it (writtenHere). */
  private readonly markedHere = new Map<string, number>();

  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
    private readonly now: () => number = Date.now,
    private readonly trackWritten = false,
  ) {}

  /** The highest knowledge a write answer carried for the budget (kept with `trackWritten`); 0 when none. */
  async written(budgetId: string): Promise<number> {
    const n = Number(parseJsonBytes(await this.store.get(writtenKey(await this.identity(), budgetId))));
    return Number.isSafeInteger(n) ? n : 0;
  }

  /** Reads the budget's records (a store that remembers what it read, Redis, then opens an intent in one round trip). */
  async read(budgetId: string): Promise<void> {
    await this.store.get(journalKey(await this.identity(), budgetId));
  }

  /**
   * The highest knowledge this process moved the written mark to (0: none), known without a read:
   * the mark only moves forward, so a copy older than this is older than the mark (manager.ts
   * seesOwnWrites), as the read after a write would have said one round trip later.
   */
  writtenHere(budgetId: string): number {
    return this.markedHere.get(budgetId) ?? 0;
  }

  /** Moves the written mark forward (never back), before the write's answer is returned. */
  private async markWritten(budgetId: string, knowledge: number | undefined): Promise<void> {
    if (!this.trackWritten || knowledge === undefined || !Number.isSafeInteger(knowledge)) return;
    // Known here as it is sent: a copy of this process older than the mark syncs (manager.ts), also while it is being written.
    if (knowledge > this.writtenHere(budgetId)) this.markedHere.set(budgetId, knowledge);
    await this.store.update(writtenKey(await this.identity(), budgetId), (bytes) => {
      const had = Number(parseJsonBytes(bytes));
      return { value: Number.isSafeInteger(had) && had >= knowledge ? undefined : jsonBytes(knowledge), result: undefined };
    });
  }

  private prune(state: JournalState, now: number): void {
    state.intents = state.intents.filter((i) => i.until > now);
    state.claimed = state.claimed.filter((c) => c.at > now - CLAIM_TTL_MS && c.at <= now + CLAIM_TTL_MS).slice(-MAX_CLAIMED);
  }

  private add(state: JournalState, knowledge: number | undefined, ids: string[], now: number): void {
    if (knowledge !== undefined && Number.isSafeInteger(knowledge) && knowledge > state.knowledge) state.knowledge = knowledge;
    const known = new Set(state.claimed.map((c) => c.id));
    for (const id of ids) if (!known.has(id)) state.claimed.push({ id, at: now });
    state.claimed = state.claimed.slice(-MAX_CLAIMED);
  }

  /** Records what a write answer or a delta said (its knowledge), outside any intent. */
  async record(budgetId: string, knowledge: number | undefined, ids: string[] = []): Promise<void> {
    if (knowledge === undefined && !ids.length) return;
    const key = journalKey(await this.identity(), budgetId);
    // The mark and the records are apart: both are written at once (one round trip, not two).
    await Promise.all([
      this.markWritten(budgetId, knowledge),
      this.store.update(key, (bytes) => {
        const state = parse(bytes);
        const before = state.knowledge;
        const count = state.claimed.length;
        this.prune(state, this.now());
        this.add(state, knowledge, ids, this.now());
        return { value: state.knowledge !== before || state.claimed.length !== count || ids.length ? serialize(state) : undefined, result: undefined };
      }),
    ]);
  }

  /**
   * Opens an intent for creating what `fingerprints` describe, once no other intent shares one of
   * them; waits (polling the store) while one does. `floor` is the replica's knowledge.
   */
  async open(budgetId: string, fingerprints: string[], floor: number): Promise<OpenIntent> {
    const key = journalKey(await this.identity(), budgetId);
    const id = randomBytes(8).toString('hex');
    const started = this.now();
    let opened: { baseline: number; claimed: string[] } | undefined;
    while (!opened) {
      const outcome = await this.store.update<{ baseline: number; claimed: string[] } | { waitUntil: number }>(key, (bytes) => {
        const state = parse(bytes);
        const now = this.now();
        this.prune(state, now);
        const mine = new Set(fingerprints);
        const blocking = state.intents.find((i) => i.fingerprints.some((f) => mine.has(f)));
        if (blocking) return { value: undefined, result: { waitUntil: blocking.until } };
        state.intents.push({ id, owner: OWNER, fingerprints: [...mine], until: now + INTENT_TTL_MS });
        return { value: serialize(state), result: { baseline: Math.max(state.knowledge, floor), claimed: state.claimed.map((c) => c.id) } };
      });
      if ('baseline' in outcome) opened = outcome;
      else if (this.now() - started > MAX_WAIT_MS) {
        throw new CreateRecordsBusyError('an identical change is still in progress elsewhere after 10 minutes; nothing was sent, try again later');
      } else await pause(key, outcome.waitUntil - this.now());
    }
    const renew = setInterval(() => {
      void this.store
        .update(key, (bytes) => {
          const state = parse(bytes);
          const intent = state.intents.find((i) => i.id === id);
          if (!intent) return { value: undefined, result: undefined };
          intent.until = this.now() + INTENT_TTL_MS;
          return { value: serialize(state), result: undefined };
        })
        .catch(() => undefined); // a failed renewal only lets the intent lapse early
    }, INTENT_TTL_MS / 3);
    renew.unref();
    let claimedNow = new Set(opened.claimed);
    const change = async (knowledge: number | undefined, ids: string[], close: boolean): Promise<void> => {
      await Promise.all([
        this.markWritten(budgetId, knowledge),
        this.store.update(key, (bytes) => {
          const state = parse(bytes);
          const now = this.now();
          this.prune(state, now);
          if (close) state.intents = state.intents.filter((i) => i.id !== id);
          this.add(state, knowledge, ids, now);
          return { value: serialize(state), result: undefined };
        }),
      ]);
    };
    return {
      budgetId,
      baseline: opened.baseline,
      claimed: async () => {
        const state = parse(await this.store.get(key));
        claimedNow = new Set([...claimedNow, ...state.claimed.map((c) => c.id)]);
        return claimedNow;
      },
      record: (knowledge, ids) => change(knowledge, ids, false),
      end: async (knowledge, ids) => {
        clearInterval(renew);
        try {
          await change(knowledge, ids, true);
        } finally {
          signal(key);
        }
      },
    };
  }
}
