/**
 * The ledger document and how it is kept in the state store: one small JSON document per token
 * key (`quota/<key>.json`, see src/storage/keys.ts), every change an atomic read-modify-write of
 * the whole document through `StateStore.update`, so that every process sharing the store (and,
 * in hosted mode, every instance sharing Redis) takes turns. It holds request times and the key
 * only, never the token.
 */
import { ledgerKey } from '../storage/keys.js';
import { jsonBytes, type SetOptions, type StateStore, textOf } from '../storage/store.js';

export interface ProbeHolder {
  /** Names the request holding the probe (random). */
  id: string;
  /** The probe lapses at this instant unless its holder renews it (ms): a crashed holder blocks no one for long. */
  until: number;
}

export interface LedgerState {
  /** When each request of the window was counted (ms since the epoch, ledger clock), ascending. */
  entries: number[];
  /** The limit announced by the server (X-Rate-Limit), once one was seen; overrides the configured one. */
  limit: number | null;
  /** After a 429: no request may go out before this instant (ms). */
  blockedUntil: number | null;
  /**
   * When an answer last settled the cold start: it carried X-Rate-Limit (the ledger then holds the
   * service's own count), or the service sends none at all (see ledger.ts). Null: never.
   */
  reconciledAt: number | null;
  /** The one request allowed out while the ledger is cold, if one is out. */
  probe: ProbeHolder | null;
  /** Which of `entries` the interval watcher made (its share of the hour: watch-share.ts), ascending. */
  watch: number[];
}

/** Version 1 throughout: reconciledAt, probe and watch are optional members that older versions ignore. */
const FORMAT_VERSION = 1;

/** A sane bound on entries; the header could claim anything, and the file must stay small. */
export const MAX_ENTRIES = 10_000;

export function emptyState(): LedgerState {
  return { entries: [], limit: null, blockedUntil: null, reconciledAt: null, probe: null, watch: [] };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Parses the document; null when it is not a ledger this version wrote (corrupt, truncated, foreign). */
export function parseState(text: string): LedgerState | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const doc = data as Record<string, unknown>;
  if (doc.v !== FORMAT_VERSION || !Array.isArray(doc.entries) || doc.entries.length > MAX_ENTRIES) return null;
  const entries: number[] = [];
  for (const t of doc.entries) {
    if (!finite(t)) return null;
    entries.push(t);
  }
  const limit = doc.limit ?? null;
  if (limit !== null && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1)) return null;
  const blockedUntil = doc.blockedUntil ?? null;
  if (blockedUntil !== null && !finite(blockedUntil)) return null;
  const reconciledAt = doc.reconciledAt ?? null;
  if (reconciledAt !== null && !finite(reconciledAt)) return null;
  const rawProbe = (doc.probe ?? null) as Record<string, unknown> | null;
  if (rawProbe !== null && !(typeof rawProbe === 'object' && typeof rawProbe.id === 'string' && finite(rawProbe.until))) return null;
  const probe = rawProbe === null ? null : { id: rawProbe.id as string, until: rawProbe.until as number };
  entries.sort((a, b) => a - b);
  const watch = Array.isArray(doc.watch) ? doc.watch.filter(finite).sort((a, b) => a - b) : [];
  return { entries, limit, blockedUntil, reconciledAt, probe, watch };
}

function serializeState(state: LedgerState): Uint8Array {
  const { entries, limit, blockedUntil, reconciledAt, probe, watch } = state;
  return jsonBytes({ v: FORMAT_VERSION, entries, limit, blockedUntil, reconciledAt, probe, ...(watch.length ? { watch } : {}) });
}

export class LedgerStore {
  readonly key: string;

  constructor(
    private readonly store: StateStore,
    tokenKey: string,
    private readonly warn: (message: string) => void,
  ) {
    this.key = ledgerKey(tokenKey);
  }

  /** The ledger's file (or key), for messages. */
  get location(): string {
    return this.store.describe(this.key);
  }

  /**
   * The current document, without locking (safe: the store replaces values whole). A missing
   * document is an empty ledger; an unparseable one is reported and treated as empty: losing the
   * history of at most one hour is better than refusing to work.
   */
  async read(): Promise<LedgerState> {
    return this.decode(await this.store.get(this.key));
  }

  /**
   * Runs `change` on the current document atomically, and writes the document back when `change`
   * reports that it changed it. Returns what `change` returned. `change` may run more than once
   * (a Redis store retries on conflict), so it must only compute.
   */
  update<T>(change: (state: LedgerState) => { result: T; changed: boolean }, opts?: SetOptions): Promise<T> {
    return this.store.update(
      this.key,
      (bytes) => {
        const state = this.decode(bytes);
        const { result, changed } = change(state);
        return { value: changed ? serializeState(state) : undefined, result };
      },
      opts,
    );
  }

  /**
   * `update` after an answer (a settle): a change that writes nothing is judged on the ledger as
   * this process last read or wrote it, without a read to confirm it (Redis: one round trip fewer).
   * What another instance changed meanwhile is aligned by the next answer's settle.
   */
  settle<T>(change: (state: LedgerState) => { result: T; changed: boolean }): Promise<T> {
    return this.update(change, { noWriteFromKnown: true });
  }

  private decode(bytes: Uint8Array | undefined): LedgerState {
    if (bytes === undefined) return emptyState();
    const state = parseState(textOf(bytes));
    if (state) return state;
    this.warn(`ynab-mcp: the request ledger ${this.location} was unreadable; starting a fresh one`);
    return emptyState();
  }
}
