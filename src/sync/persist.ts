/**
 * Replicas saved to the state store after each sync, so that a restarted server needs one delta
 * request instead of a full export. Values are in a compact columnar form, compressed
 * (saved-form.ts), then encrypted with AES-256-GCM before they reach the store (copies saved as
 * gzip'd JSON by earlier versions still read, and are saved in the new form at the next save); the key lives in the OS keychain (via the secret store) or, without
 * one, in a 0600 key file. The budget and the identity are bound in as associated data, so a
 * copy moved to another name or identity does not decrypt.
 * A saved copy that cannot be used (it does not decrypt, it is not the expected shape, its sync
 * time is in the future) is removed and the budget fetched again, and the caller is told why so
 * that the answer can say so: never a failing call, a stack trace or a crash loop. A key that
 * cannot be had (an unreadable key file, a locked keychain) is a KeyUnavailableError naming it:
 * the copy is kept, and the caller answers from YNAB, in memory, saying why.
 */
import { randomBytes } from 'node:crypto';
import { aliasesKey, replicaFeedKey, replicaKey } from '../storage/keys.js';
import type { Warn } from '../storage/safe-fs.js';
import { jsonBytes, KeyUnavailableError, parseJsonBytes, type StateStore } from '../storage/store.js';
import type * as E from '../api/schemas/entities.js';
import type { ReplicaSnapshot } from './replica.js';
import { packFeed, unpackFeed } from './feed-form.js';
import { type Feed, feedProblem } from './replica-feed.js';
import { type KeySource, Sealer } from './seal.js';
import { snapshotProblem, snapshotShape } from './snapshot-check.js';
import { gunzipJson } from './snapshot-codec.js';
import { packStream, unpackDeferring, unpackValue } from './saved-form.js';

/**
 * Copies are saved as `YMCPR4 <shape>\n` + the sealed columnar form (saved-form.ts), the shape
 * (snapshot-check.ts) also in the associated data: one of this build's shape is not checked entity
 * by entity again. Its months are written last and `alone` (columnar-codec.ts): read later, they
 * need none of the rows before them held. `YMCPR3` (earlier versions) is the same form with months
 * that may refer back to those rows. Copies of another shape, and those of older versions
 * (`YMCPR2 <shape>\n` and `YMCPR1\n`: gzip'd JSON, the latter without a shape), are. The digit is
 * the form's version.
 */
const COLUMNAR = 'YMCPR4 ';
const COLUMNAR_MONTHS_REFER_BACK = 'YMCPR3 ';
/** The field a copy of the current form writes alone. */
const ALONE = 'months';
const SHAPED_JSON = 'YMCPR2 ';
const LEGACY_MAGIC = Buffer.from('YMCPR1\n');
/**
 * Feeds: `YMCPF3` each entry packed on its own (feed-form.ts); earlier versions wrote `YMCPF2`, the
 * whole feed in one columnar form, and `YMCPF1`, JSON. All three are read.
 */
const FEED_MAGIC = Buffer.from('YMCPF3\n');
const WHOLE_FEED_MAGIC = Buffer.from('YMCPF2\n');
const JSON_FEED_MAGIC = Buffer.from('YMCPF1\n');

/** The layout a saved value's header names: its form and shape (none: the oldest layout). */
function layoutOf(bytes: Uint8Array): { prefix: string; shape: string } | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('latin1');
  const m = /^(YMCPR[234] )([0-9a-f]{16})\n/.exec(head);
  return m ? { prefix: m[1]!, shape: m[2]! } : undefined;
}

const startsWith = (bytes: Uint8Array, magic: Buffer) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(0, magic.length).equals(magic);

export type { KeySource } from './seal.js';

const stderr: Warn = (m) => void process.stderr.write(`${m}\n`);

/** A 32-byte key in a 0600 file of the state directory (used when no keychain holds it). */
export { fileKey } from '../storage/key-file.js';

/**
 * A key kept as a named secret (the OS keychain when there is one). A keychain that cannot give
 * it now (locked, its entry unreadable) is a KeyUnavailableError naming it, and is asked again
 * next time.
 */
export function secretKey(get: () => Promise<string | null>, set: (value: string) => Promise<void>, where = 'the OS keychain'): KeySource {
  let cached: Promise<Buffer> | undefined;
  const load = async (): Promise<Buffer> => {
    try {
      const stored = await get();
      const raw = stored ? Buffer.from(stored, 'base64') : undefined;
      if (raw?.length === 32) return raw;
      const fresh = randomBytes(32);
      await set(fresh.toString('base64'));
      return fresh;
    } catch (e) {
      throw new KeyUnavailableError(
        'read',
        where,
        `the replica key in ${where} cannot be had (${(e as Error)?.message ?? String(e)}). Unlock the keychain, or set YNAB_MCP_KEYCHAIN=off to keep the key in a file.`,
        { cause: e },
      );
    }
  };
  return {
    key() {
      cached ??= load().catch((e: unknown) => {
        cached = undefined;
        throw e;
      });
      return cached;
    },
  };
}

/** What loading a saved copy gave: the copy, nothing saved, or a copy that was discarded (and why). */
export type Loaded =
  | {
      snapshot: ReplicaSnapshot;
      /** Checked entity by entity (not of this build's shape). */
      checked: boolean;
      /** Read from the columnar form, whose equal strings are one string each already (string-pool.ts). */
      shared: boolean;
      /** The months, read when called (once): the snapshot's are left out until then. */
      months?: () => E.MonthDetailBase[];
    }
  | { snapshot?: undefined; discarded?: string };

export class ReplicaFiles {
  private readonly sealers = new Map<string, Sealer>();
  private readonly feedSealer: Sealer;
  private readonly wholeFeedSealer: Sealer;
  private readonly jsonFeedSealer: Sealer;

  constructor(
    private readonly store: StateStore,
    private readonly keys: KeySource,
    private readonly warn: Warn = stderr,
    private readonly now: () => number = Date.now,
  ) {
    this.feedSealer = new Sealer(keys, FEED_MAGIC);
    this.wholeFeedSealer = new Sealer(keys, WHOLE_FEED_MAGIC);
    this.jsonFeedSealer = new Sealer(keys, JSON_FEED_MAGIC);
  }

  private aad(identity: string, budgetId: string): string {
    return `${identity}/${budgetId}`;
  }

  /**
   * A copy's associated data: its identity and budget, its shape, and from YMCPR4 its form too, so
   * that a header changed to name another form does not open (read by the other form's rules,
   * a copy's balances would come out wrong without an error).
   */
  private copyAad(identity: string, budgetId: string, layout: { prefix: string; shape: string } | undefined): string {
    if (!layout) return this.aad(identity, budgetId);
    const form = layout.prefix === COLUMNAR ? `/${COLUMNAR.trim()}` : '';
    return `${this.aad(identity, budgetId)}/${layout.shape}${form}`;
  }

  private feedAad(identity: string, budgetId: string): string {
    return `${this.aad(identity, budgetId)}/feed/${snapshotShape()}`;
  }

  /** The sealer of copies of a layout (undefined: the oldest, without a shape). */
  private sealer(layout: { prefix: string; shape: string } | undefined): Sealer {
    const key = layout ? `${layout.prefix}${layout.shape}` : '';
    let sealer = this.sealers.get(key);
    if (!sealer) this.sealers.set(key, (sealer = new Sealer(this.keys, layout ? Buffer.from(`${key}\n`) : LEGACY_MAGIC)));
    return sealer;
  }

  async save(identity: string, snapshot: ReplicaSnapshot): Promise<void> {
    // Compressed before it is sealed: ciphertext does not compress. The columnar form of a
    // 100,000-transaction budget is a few MB, where its JSON was tens.
    const shape = snapshotShape();
    const layout = { prefix: COLUMNAR, shape };
    // The key first: one that cannot be had is told at once, not after the encoding (written in
    // pieces over many turns since issue 61) ran for nothing, past the answers that should say so.
    await this.keys.key();
    // Sealed as brotli gives it: the compressed form is never joined before it is sealed (issue 61).
    const sealed = await this.sealer(layout).sealStream(packStream(snapshot, undefined, ALONE), this.copyAad(identity, snapshot.summary.id, layout));
    await this.store.set(replicaKey(identity, snapshot.summary.id), sealed);
  }

  /**
   * The saved copy; a copy that cannot be used is removed and reported as discarded. `monthsLater`:
   * a copy of this build's shape leaves its months (written last) out, to be read by `months`.
   */
  async load(identity: string, budgetId: string, opts: { monthsLater?: boolean } = {}): Promise<Loaded> {
    const key = replicaKey(identity, budgetId);
    const bytes = await this.store.get(key);
    if (bytes === undefined) return {};
    // A key that cannot be had now (a locked keychain, an unreadable key file) is no reason to
    // throw the copy away: the KeyUnavailableError goes to the caller, which answers from YNAB.
    const secret = await this.keys.key();
    let problem: string;
    try {
      const layout = layoutOf(bytes);
      const shape = layout?.shape;
      const plain = this.sealer(layout).openSync(secret, bytes, this.copyAad(identity, budgetId, layout));
      const checked = shape !== snapshotShape();
      // A copy of this build's shape may leave its months to be read when first asked for (the
      // replica reads them then: replica-months.ts). One checked entity by entity is read whole.
      const columnar = layout?.prefix === COLUMNAR || layout?.prefix === COLUMNAR_MONTHS_REFER_BACK;
      const alone = layout?.prefix === COLUMNAR ? ALONE : undefined;
      const read: { value: unknown; rest?: () => unknown } = !columnar
        ? { value: await gunzipJson(plain) }
        : opts.monthsLater
          ? await unpackDeferring(plain, 'months', alone)
          : { value: await unpackValue(plain, alone) };
      if (read.rest && checked) (read.value as Record<string, unknown>).months = read.rest();
      const months = read.rest && !checked ? (read.rest as () => E.MonthDetailBase[]) : undefined;
      const data = read.value;
      const now = this.now();
      const wrong = snapshotProblem(data, budgetId, now, !checked);
      if (wrong === null) {
        const snapshot = data as ReplicaSnapshot;
        snapshot.syncedAt = Math.min(snapshot.syncedAt, now); // within the tolerated clock difference
        if (months) snapshot.months = [];
        return { snapshot, checked, shared: columnar, months };
      }
      problem = wrong;
    } catch (e) {
      problem = (e as Error).message;
    }
    this.warn(`ynab-mcp: the saved copy of budget ${budgetId} could not be read (${problem}); it was removed and the budget will be fetched again`);
    await this.store.delete(key).catch(() => undefined); // if it cannot be removed, the next start discards it again
    return { discarded: problem };
  }

  /**
   * The budget's feed (replica-feed.ts), or undefined when there is none or it cannot be used: then
   * copies are read whole, as without feeds, and the next sync writes a new one.
   */
  async loadFeed(identity: string, budgetId: string): Promise<Feed | undefined> {
    return this.openFeed(identity, budgetId, await this.store.get(replicaFeedKey(identity, budgetId)));
  }

  /** The feed from its bytes as the store held them (read with the sync's lock: manager.ts), as loadFeed says. */
  async openFeed(identity: string, budgetId: string, bytes: Uint8Array | undefined): Promise<Feed | undefined> {
    if (bytes === undefined) return undefined;
    try {
      // Sealed with this build's shape (as copies are): a feed of another build does not open, and is no feed.
      const key = await this.keys.key();
      const aad = this.feedAad(identity, budgetId);
      if (startsWith(bytes, FEED_MAGIC)) return unpackFeed(this.feedSealer.openSync(key, bytes, aad), budgetId);
      const data: unknown = startsWith(bytes, JSON_FEED_MAGIC)
        ? JSON.parse(this.jsonFeedSealer.openSync(key, bytes, aad).toString('utf8'))
        : await unpackValue(this.wholeFeedSealer.openSync(key, bytes, aad));
      return feedProblem(data, budgetId) === null ? (data as Feed) : undefined;
    } catch (e) {
      if (e instanceof KeyUnavailableError) throw e;
      return undefined;
    }
  }

  async saveFeed(identity: string, budgetId: string, feed: Feed): Promise<void> {
    const { key, sealed } = await this.sealFeed(identity, budgetId, feed);
    await this.store.set(key, sealed);
  }

  /** The feed sealed, and its key: for the sync's lock to write as it is released (manager.ts). */
  async sealFeed(identity: string, budgetId: string, feed: Feed): Promise<{ key: string; sealed: Uint8Array }> {
    return { key: replicaFeedKey(identity, budgetId), sealed: await this.feedSealer.seal(packFeed(feed), this.feedAad(identity, budgetId)) };
  }

  /** Which budget `last-used` / `default` named at the last sync, so a restart can start from its saved copy. */
  async loadAliases(identity: string): Promise<Record<string, string>> {
    const parsed = parseJsonBytes(await this.store.get(aliasesKey(identity)).catch(() => undefined));
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  }

  async saveAliases(identity: string, aliases: Record<string, string>): Promise<void> {
    await this.store.set(aliasesKey(identity), jsonBytes(aliases));
  }

  async remove(identity: string, budgetId: string): Promise<void> {
    await this.store.delete(replicaKey(identity, budgetId));
    await this.store.delete(replicaFeedKey(identity, budgetId));
  }
}
