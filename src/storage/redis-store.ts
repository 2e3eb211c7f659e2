/**
 * The state store of hosted mode: the same keys as the file store (keys.ts), kept in Redis so
 * that any number of stateless instances share ledgers, replicas, create records, grants and the
 * authorization server's records. Loaded only by hosted mode (`serve --hosted`); the single-user
 * default never imports it, nor the Redis client.
 *
 * How each operation maps (see store.ts):
 *  - get / set / delete: GET, SET (PX for a ttl), DEL, under a key prefix (default `ynab-mcp:`).
 *  - list: SCAN MATCH `<prefix><key prefix>*`.
 *  - update: optimistic compare-and-set. The value is read, `change` computes the next one, and
 *    a Lua script writes it only if the stored value still has the digest that was read (SHA-1 of
 *    the bytes, computed by Redis itself), else the whole round is retried. One shared connection
 *    serves every caller (WATCH would need a connection per caller); callers of one instance take
 *    turns per key, so retries only happen between instances. The value this instance last read
 *    or wrote of a small key is remembered (`known`), and an update's first round computes from it
 *    without a GET: the script still compares digests, so a value changed by another instance (or
 *    expired) only costs the round a GET would have, and nothing is judged on it unwritten (a
 *    `change` that writes nothing is asked again with the value read). A write of the grant, the
 *    ledger or an id list is one round trip instead of two.
 *  - withLock: a lease, `SET locks/<name> <random> NX PX 15000`, renewed while held and released by
 *    a compare-and-delete script (redis-lock.ts, with the read and the writes sent beside them).
 * A Redis Cluster (redis-link.ts) gets the same commands, each routed by its key; every script
 * touches one key, and a user's keys share a hash tag (keys.ts) so that later ones may touch more.
 * Commands fail fast when Redis cannot be reached (no offline queue, a per-command timeout), with
 * a StateStoreError naming the Redis location (never its password), so callers degrade as they
 * do for an unwritable state directory: reads answered from a copy in memory, with a notice.
 */
import { LRUCache } from 'lru-cache';
import { checkKey, clusterName, clusterPrefix, keyOfClusterName, labelOf } from './keys.js';
import { openLink, type RedisLink } from './redis-link.js';
import { redisLocation } from './redis-url.js';
import { type Change, type Held, type IoAside, type LockOptions, type SetOptions, type StateStore, StateStoreError, type StoreFailure } from './store.js';
import { leased } from './redis-lock.js';
import { inTurn } from './turns.js';
import { CAS_SCRIPT, CAS_SHA, LEASE_SCRIPT, LEASE_SHA, sha1 } from './redis-scripts.js';

/** Conflicting updates from other instances are retried this many times before giving up. */
const MAX_UPDATE_ROUNDS = 200;

/** Values this instance remembers for its updates' first rounds: small ones (16 kB), 8 MB in all. */
const [KNOWN_MAX_VALUE, KNOWN_MAX_BYTES] = [16 * 1024, 8 * 1024 * 1024];

/** Glob characters in the configured prefix are matched literally by SCAN. */
const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export interface RedisStoreOptions {
  /** Prefix of every key this store writes; lets one Redis serve several deployments. Default `ynab-mcp:`. */
  prefix?: string;
  /** Where connection trouble is reported (once per change of state). Default stderr. */
  log?: (line: string) => void;
  /**
   * How long keys under a prefix live after their last write when written without a ttl (e.g.
   * `{ 'replicas/': 35 days }`), so that what belongs to users who stopped coming goes by itself.
   */
  retention?: Record<string, number>;
  /**
   * Told of every command as it is sent (its name, e.g. GET or EVALSHA; never a key), and told its
   * time by the function it returns when the answer is back: for metrics and round-trip counts.
   */
  onCommand?: (command: string) => (seconds: number) => void;
  /** Wraps every wait on Redis (commands, a lock's retry pause): hosted mode's admission. */
  aside?: IoAside;
}

export { redisLocation };

export class RedisStateStore implements StateStore {
  readonly location: string;
  private readonly prefix: string;
  private readonly log: (line: string) => void;
  private readonly retention: [string, number][];
  /** The last value read or written of each small key (`absent`: none), by its Redis name. */
  private readonly known = new LRUCache<string, Buffer | 'absent'>({
    maxSize: KNOWN_MAX_BYTES,
    sizeCalculation: (v, k) => k.length + (v === 'absent' ? 8 : v.byteLength),
  });
  private constructor(
    private readonly client: RedisLink,
    url: string,
    private readonly opts: RedisStoreOptions,
  ) {
    this.location = redisLocation(url);
    this.prefix = opts.prefix ?? 'ynab-mcp:';
    this.log = opts.log ?? ((line) => void process.stderr.write(`${line}\n`));
    this.retention = Object.entries(opts.retention ?? {});
  }

  /** The ttl a write gets: its own, else the retention of its prefix, else none. */
  private ttlFor(key: string, opts: SetOptions): number | undefined {
    if (opts.ttlMs !== undefined) return Math.max(1, Math.round(opts.ttlMs));
    return this.retention.find(([prefix]) => key.startsWith(prefix))?.[1];
  }

  /** Connects to `url` (redis://, rediss://, or a cluster: redis+cluster://h:p,h:p) and checks it answers. */
  static async connect(url: string, opts: RedisStoreOptions = {}): Promise<RedisStateStore> {
    const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
    const location = redisLocation(url);
    let down = false;
    let connected = false;
    let client: RedisLink | undefined;
    try {
      client = await openLink(
        url,
        {
          down: (e) => {
            if (down) return;
            down = true;
            log(`ynab-mcp: Redis at ${location} cannot be reached (${e.message}); retrying`);
          },
          up: () => {
            connected = true;
            if (down) log(`ynab-mcp: Redis at ${location} is reachable again`);
            down = false;
          },
        },
        () => connected,
      );
      await client.send(undefined, true, ['PING']);
    } catch (e) {
      await client?.close();
      throw new StateStoreError('read', location, `Redis at ${location} cannot be reached (${(e as Error).message}); check --redis and that Redis is running`, {
        cause: e,
      });
    }
    return new RedisStateStore(client, url, opts);
  }

  describe(key: string): string {
    return `${this.location} key ${this.prefix}${checkKey(key)}`;
  }

  /** A key's name in Redis; in a cluster, a user's keys carry the user's hash tag (keys.ts). */
  private full(key: string): string {
    return this.prefix + (this.client.cluster ? clusterName(checkKey(key)) : checkKey(key));
  }

  /** A wait on Redis: hosted mode's admission hands the request's slot on meanwhile. */
  private readonly wait: IoAside = (io, where) => (this.opts.aside ? this.opts.aside(io, where) : io());
  /** A wait on another caller (its turn, its lock): away from the loop, so that the caller can come back to it. */
  private readonly waitAway: IoAside = (io) => this.wait(io, 'away');

  /** Callers of this instance take turns per key; waiting for one's turn is a wait on Redis too. */
  private inTurn<T>(full: string, task: () => Promise<T>): Promise<T> {
    return inTurn(`redis:${this.location}:${full}`, task, this.waitAway);
  }

  /** Every command goes through here: routed (in a cluster) by the Redis name `route`, timed for `onCommand`. */
  private async send<T>(route: string | undefined, readOnly: boolean, args: (string | Buffer)[]): Promise<T> {
    const ended = this.opts.onCommand?.(String(args[0]));
    const started = performance.now();
    try {
      return await this.wait(() => this.client.send<T>(route, readOnly, args));
    } finally {
      ended?.((performance.now() - started) / 1000);
    }
  }

  /** Sends `args`, routed (in a cluster) by the Redis name of `key` when it is one. */
  private async run<T>(failure: StoreFailure, key: string, args: (string | Buffer)[], route?: string): Promise<T> {
    try {
      return await this.send<T>(route, failure === 'read', args);
    } catch (e) {
      throw this.error(failure, key, e);
    }
  }

  /** EVALSHA, loading the script when this Redis has not seen it yet (or was restarted). */
  private async script<T>(failure: StoreFailure, key: string, sha: string, source: string, keys: string[], args: (string | Buffer)[]): Promise<T> {
    try {
      return await this.send<T>(keys[0], false, ['EVALSHA', sha, String(keys.length), ...keys, ...args]);
    } catch (e) {
      if (!/NOSCRIPT/.test((e as Error).message ?? '')) throw this.error(failure, key, e);
    }
    return this.run<T>(failure, key, ['EVAL', source, String(keys.length), ...keys, ...args], keys[0]);
  }

  /** Remembers what `full` now holds (undefined: absent); forgets a value too large to keep. */
  private remember(full: string, value: Uint8Array | undefined): void {
    if (value === undefined) this.known.set(full, 'absent');
    else if (value.byteLength <= KNOWN_MAX_VALUE)
      this.known.set(full, Buffer.from(value)); // a copy: the caller's bytes may change
    else this.known.delete(full);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const full = this.full(key);
    // Forgotten first: a read that fails leaves nothing remembered that may be stale.
    this.known.delete(full);
    const value = (await this.run<Buffer | null>('read', key, ['GET', full], full)) ?? undefined;
    this.remember(full, value);
    return value;
  }

  async set(key: string, value: Uint8Array, opts: SetOptions = {}): Promise<void> {
    const full = this.full(key);
    const args: (string | Buffer)[] = ['SET', full, Buffer.from(value.buffer, value.byteOffset, value.byteLength)];
    const ttl = this.ttlFor(key, opts);
    if (ttl !== undefined) args.push('PX', String(ttl));
    this.known.delete(full);
    await this.run('write', key, args, full);
    this.remember(full, value);
  }

  async delete(key: string): Promise<void> {
    const full = this.full(key);
    this.known.delete(full);
    await this.run('write', key, ['DEL', full], full);
    this.remember(full, undefined);
  }

  async list(prefix: string): Promise<string[]> {
    const match = `${escapeGlob(this.prefix + (this.client.cluster ? clusterPrefix(prefix) : prefix))}*`;
    const keys = new Set<string>();
    // A cluster's keys are spread over its masters: each is scanned in turn.
    let masters: Awaited<ReturnType<RedisLink['masters']>>;
    try {
      masters = await this.client.masters();
    } catch (e) {
      throw this.error('read', prefix || 'state', e);
    }
    for (const master of masters) {
      let cursor = '0';
      do {
        let reply: [Buffer | string, (Buffer | string)[]];
        try {
          reply = (await master(['SCAN', cursor, 'MATCH', match, 'COUNT', '1000'])) as typeof reply;
        } catch (e) {
          throw this.error('read', prefix || 'state', e);
        }
        cursor = String(reply[0]);
        for (const k of reply[1]) {
          const name = keyOfClusterName(String(k).slice(this.prefix.length));
          if (!name.startsWith('locks/')) keys.add(name);
        }
      } while (cursor !== '0');
    }
    return [...keys];
  }

  update<T>(key: string, change: (current: Uint8Array | undefined) => Change<T>, opts: SetOptions = {}): Promise<T> {
    const full = this.full(key);
    return this.inTurn(full, async () => {
      // The first round from the value this instance last saw, when it has one (see the header).
      let remembered = this.known.get(full);
      for (let round = 1; ; round++) {
        const fromKnown = remembered !== undefined;
        const current = fromKnown ? (remembered === 'absent' ? undefined : remembered) : await this.get(key);
        remembered = undefined;
        const { value, result } = change(current);
        if (value === undefined) {
          if (fromKnown && !opts.noWriteFromKnown) continue; // nothing written: judged again on the value read
          return result;
        }
        const ttl = value === null ? '' : String(this.ttlFor(key, opts) ?? '');
        this.known.delete(full); // until the script's answer says what the key holds
        const written = await this.script<number>(
          'write',
          key,
          CAS_SHA,
          CAS_SCRIPT,
          [full],
          [
            current === undefined ? '' : sha1(current),
            value === null ? '' : Buffer.from(value.buffer, value.byteOffset, value.byteLength),
            value === null ? 'del' : 'set',
            ttl,
          ],
        );
        if (written === 1) {
          this.remember(full, value === null ? undefined : value);
          return result;
        }
        if (fromKnown) continue; // what this instance remembered had changed: read it now
        if (round >= MAX_UPDATE_ROUNDS) {
          throw new StateStoreError('write', this.describe(key), `${labelOf(key)} ${this.describe(key)} kept changing under this update; try again`);
        }
        // Another instance wrote in between: read again after a short, jittered pause.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, round * 2)));
      }
    });
  }

  withLock<T>(name: string, fn: (held?: Held) => Promise<T>, opts: LockOptions = {}): Promise<T> {
    const full = this.full(`locks/${name}`);
    const script = (key: string, token: string, arg: string) => this.script('lock', key, LEASE_SHA, LEASE_SCRIPT, [full], [token, arg]);
    return this.inTurn(full, () =>
      leased(
        {
          inOrder: !this.client.cluster,
          describe: (key) => this.describe(key),
          take: (key, token, ms) => this.run('lock', key, ['SET', full, token, 'NX', 'PX', String(ms)], full),
          lease: script,
          get: (key) => this.get(key),
          set: (key, value, o) => this.set(key, value, o),
          wait: this.wait,
        },
        name,
        fn,
        opts,
      ),
    );
  }

  /** A PING to every master (one Redis, or each of a cluster's), opening their connections: an instance's warm-up. Returns how many answered. */
  async warm(): Promise<number> {
    try {
      return (await Promise.all((await this.client.masters()).map((master) => this.wait(() => master(['PING']))))).length;
    } catch (e) {
      throw this.error('read', 'state', e);
    }
  }

  /** Memory Redis reports for the keys under `prefix` (MEMORY USAGE), for the bench. */
  async memoryUsage(prefix = ''): Promise<number> {
    let total = 0;
    for (const key of await this.list(prefix)) total += await this.keyMemory(key);
    return total;
  }

  /** Memory Redis reports for one key (MEMORY USAGE: value, key and the allocator's rounding); 0 when there is none. */
  async keyMemory(key: string): Promise<number> {
    return Number((await this.run<number | null>('read', key, ['MEMORY', 'USAGE', this.full(key), 'SAMPLES', '0'], this.full(key))) ?? 0);
  }

  /** One command on `key` alone (ZADD, ZREVRANGE…: hosted mode's recently active users, src/hosted/warm-users.ts). */
  keyed = <T>(f: StoreFailure, cmd: string, key: string, ...args: string[]) => this.run<T>(f, key, [cmd, this.full(key), ...args], this.full(key));

  async close(): Promise<void> {
    await this.client.close();
  }

  private error(failure: StoreFailure, key: string, e: unknown): StateStoreError {
    if (e instanceof StateStoreError) return e;
    const verb = { read: 'cannot be read', write: 'cannot be written', lock: 'cannot be locked' }[failure];
    const where = key === 'state' || key === '' ? `Redis at ${this.location}` : `${labelOf(key)} (${this.describe(key)})`;
    return new StateStoreError(failure, this.location, `${where} ${verb} (${(e as Error)?.message ?? String(e)})`, { cause: e });
  }
}
