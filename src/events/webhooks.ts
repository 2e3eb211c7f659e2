/**
 * Webhook subscriptions (SEP-3415 `events/subscribe`): kept in the state store, sealed (the record
 * holds the subscriber's secret), one per (principal, url, name, arguments), with a TTL the
 * subscriber refreshes; and their delivery: each occurrence after the subscription's position that
 * passes its filters, one signed POST each (webhook-send.ts), in order, retried with backoff up to
 * a bound, after which the subscription is marked failing (`deliveryStatus.active: false`, the
 * error's category) until a refresh reactivates it. Unsubscribing deletes the record, and every
 * attempt reads it first, so delivery stops at once. Quiet hours hold deliveries until they end.
 * The SEP's control envelopes (§Non-event webhook bodies): `gap` when the position fell out of what
 * the log keeps, `terminated` when the budget can no longer be read (webhook-control.ts), to a subscriber whose dialect takes them; a new secret on
 * refresh is dual-signed with the old one for a grace window (§Webhook security, Secret rotation).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sealer } from '../sync/seal.js';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import type { EventArguments, EventName } from './catalog.js';
import { cursorOf } from './log.js';
import { isQuiet } from './settings.js';
import { matches } from './filter.js';
import type { EventsService } from './service.js';
import { post, secretBytes, signature, type Outcome, type SendOptions, type Sent } from './webhook-send.js';
import { controlId, endingOf, gapBody, terminatedBody, type Ending } from './webhook-control.js';
import { canonical, subscriptionIds } from './webhook-ids.js';
import { codeIn, takesControlEnvelopes, type Dialect } from './dialect.js';
import type { IdList } from '../storage/id-list.js';
import type { BudgetReplica } from '../sync/replica.js';
import { HANDSHAKE } from './webhook-deadline.js';

export interface WebhookOptions extends SendOptions {
  /** Waits between attempts of one delivery (default 1 s, 5 s, 25 s: four attempts). */
  retryDelaysMs?: number[];
  /** Per-principal caps (principal-caps.ts); the rest default. */
  caps?: Partial<import('./principal-caps.js').Caps>;
}

export interface DeliveryStatus {
  active: boolean;
  lastDeliveryAt: string | null;
  lastError: string | null;
  failedSince?: string;
}

interface Subscription {
  id: string;
  principal: string;
  name: EventName;
  arguments: EventArguments;
  url: string;
  secret: string;
  /** The secret a refresh replaced, still signed with until `until` (ms). */
  previous?: { secret: string; until: number };
  /** Its dialect (dialect.ts: envelopes, codes; older records `sep`), and a gap it was not told for want of a gap envelope (its next refresh says `truncated`). */
  dialect?: Dialect;
  gapped?: boolean;
  budgetId: string;
  epoch: string;
  /** Delivered (or abandoned) through this sequence number of the budget's log. */
  through: number;
  expiresAt: number;
  status: DeliveryStatus;
  /** The client that subscribed (src/mcp/state/caller.ts): what is delivered to it is not pulled again (pull.ts). */
  client?: string;
}

export { subscriptionId } from './webhook-ids.js';
export const DEFAULT_TTL_MS = 60 * 60_000;
export const MIN_TTL_MS = 60_000;
export const MAX_TTL_MS = 24 * 60 * 60_000;
/**
 * How long a replaced secret still signs (the SEP's "short grace window", its length left to the
 * server): well past one delivery's whole retry schedule (1 s + 5 s + 25 s of waits, 5 s each try).
 */
export const ROTATION_GRACE_MS = 15 * 60_000;

const enc = (s: Subscription) => Buffer.from(JSON.stringify(s));

export class Webhooks {
  private readonly chains = new Map<string, Promise<void>>();
  /** Told of each delivery's outcome (metrics: webhook_deliveries_total{outcome}). */
  onDelivery?: (outcome: Outcome) => void;

  constructor(
    private readonly events: EventsService,
    private readonly store: StateStore,
    private readonly sealer: Sealer,
    private readonly identity: () => Promise<string>,
    readonly opts: WebhookOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ids = subscriptionIds(store, identity);
    events.onFired((budgetId) => void this.track(this.deliverBudget(budgetId)));
  }

  /** The ids of the subscriptions, kept beside them (webhook-ids.ts). */
  private readonly ids: IdList;
  /** Those ids as kept, in the order kept; none pruned (a subscribe lists its id before its record: all() would drop it). */
  listed = (): Promise<string[]> => this.ids.all();

  /** Deliveries started by what fired, until they end (settled()). */
  private readonly pending = new Set<Promise<void>>();

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => undefined);
  }

  /** Once every delivery started so far has ended, retries included (hosted watch jobs close their state then). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
    await Promise.allSettled([...this.chains.values()]);
  }

  private async key(id: string): Promise<string> {
    return `events/${segment(await this.identity())}/webhooks/${segment(id)}.sub`;
  }

  private async read(id: string): Promise<Subscription | undefined> {
    const key = await this.key(id);
    const bytes = await this.store.get(key);
    return bytes ? (JSON.parse((await this.sealer.open(bytes, key)).toString('utf8')) as Subscription) : undefined;
  }

  /** Changes a record atomically; undefined when it is gone (unsubscribed). */
  private async change(id: string, fn: (s: Subscription) => Subscription): Promise<Subscription | undefined> {
    const key = await this.key(id);
    const sealKey = await this.sealer.key();
    return this.store.update(key, (bytes) => {
      if (!bytes) return { value: undefined, result: undefined };
      const next = fn(JSON.parse(this.sealer.openSync(sealKey, bytes, key).toString('utf8')) as Subscription);
      return { value: this.sealer.sealSync(sealKey, enc(next), key), result: next };
    });
  }

  private async verifiedKey(principal: string, url: string): Promise<string> {
    const hash = createHash('sha256')
      .update(canonical([principal, url]))
      .digest('hex')
      .slice(0, 32);
    return `events/${segment(await this.identity())}/verified/${hash}`;
  }

  /**
   * §Webhook security, Endpoint verification: a handshake is cached per (principal, url) and covers
   * that principal's subscriptions to the URL across refreshes, arguments and secrets, so varying
   * them cannot multiply verification POSTs at an endpoint; another principal verifies anew. Kept
   * in the store for a day, the longest TTL granted.
   */
  async isVerified(principal: string, url: string): Promise<boolean> {
    return (await this.store.get(await this.verifiedKey(principal, url))) !== undefined;
  }

  async markVerified(principal: string, url: string): Promise<void> {
    await this.store.set(await this.verifiedKey(principal, url), Buffer.from(new Date(this.now()).toISOString()), { ttlMs: MAX_TTL_MS });
  }

  async get(id: string): Promise<Subscription | undefined> {
    return this.read(id);
  }

  /**
   * Creates or refreshes a subscription atomically: a live one (same log) keeps its delivery
   * position, whatever a delivery in flight moved it to; the rest of the record is replaced.
   */
  async upsert(s: Subscription): Promise<Subscription> {
    await this.ids.add(s.id);
    const key = await this.key(s.id);
    const sealKey = await this.sealer.key();
    const kept = await this.store.update(key, (bytes) => {
      const was = bytes ? (JSON.parse(this.sealer.openSync(sealKey, bytes, key).toString('utf8')) as Subscription) : undefined;
      const next: Subscription = was && was.epoch === s.epoch ? { ...s, through: was.through } : { ...s };
      // §Webhook security, Secret rotation: the old secret keeps signing alongside for the grace window.
      const previous = was && was.secret !== s.secret ? { secret: was.secret, until: this.now() + ROTATION_GRACE_MS } : was?.previous;
      if (previous && previous.until > this.now()) next.previous = previous;
      else delete next.previous;
      return { value: this.sealer.sealSync(sealKey, enc(next), key), result: next };
    });
    // Listed again now the record is written: an all() between the first add and the write found
    // the id without its record and dropped it, which hid the subscription from listing and delivery.
    await this.ids.add(s.id);
    return kept;
  }

  async remove(id: string): Promise<boolean> {
    const key = await this.key(id);
    // One atomic step, under the update lock like every other change of the record: a get, then a
    // delete, let a refresh that read the record before the delete write it back (resurrected).
    const had = await this.store.update(key, (bytes) => ({ value: bytes === undefined ? undefined : null, result: bytes !== undefined }));
    await this.ids.remove(id);
    return had;
  }

  /** Every live subscription of this identity (expired ones are removed as they are found). */
  async all(): Promise<Subscription[]> {
    const out: Subscription[] = [];
    for (const id of await this.ids.all()) {
      const s = await this.read(id).catch(() => undefined);
      if (!s) {
        if ((await this.store.get(await this.key(id))) === undefined) await this.ids.remove(id);
        continue;
      }
      if (s.expiresAt <= this.now()) await this.remove(id);
      else out.push(s);
    }
    return out;
  }

  /**
   * Signs and sends one body; the headers carry no secret. During a rotation's grace window the
   * signature header holds both `v1,` signatures, the new secret's first (Standard Webhooks
   * multi-signature: the receiver accepts the delivery if any verifies).
   */
  async send(s: Pick<Subscription, 'id' | 'url' | 'secret' | 'previous'>, messageId: string, body: string, how: SendOptions = {}): Promise<Sent> {
    const timestamp = Math.floor(this.now() / 1000);
    const secrets = [s.secret, ...(s.previous && s.previous.until > this.now() ? [s.previous.secret] : [])];
    const headers = {
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((x) => signature(secretBytes(x)!, messageId, timestamp, body)).join(' '),
      'x-mcp-subscription-id': s.id,
    };
    return post(s.url, headers, body, { ...this.opts, ...how });
  }

  /** The verification handshake: the endpoint echoes a nonce in a 2xx body; undefined when it did, else why not. */
  async verify(s: Pick<Subscription, 'id' | 'url' | 'secret'>): Promise<string | undefined> {
    const challenge = randomBytes(18).toString('base64url');
    const id = `msg_verification_${randomBytes(8).toString('hex')}`;
    const { outcome, text } = await this.send(s, id, JSON.stringify({ type: 'verification', challenge }), HANDSHAKE);
    if (outcome !== 'ok') return outcome === 'blocked' ? 'connection_refused' : outcome === 'gone' || outcome === 'too_large' ? 'http_4xx' : outcome;
    let echoed = '';
    try {
      echoed = String((JSON.parse(text ?? '') as { challenge?: unknown }).challenge ?? '');
    } catch {
      return 'challenge_failed';
    }
    const a = Buffer.from(echoed);
    const b = Buffer.from(challenge);
    return a.length === b.length && timingSafeEqual(a, b) ? undefined : 'challenge_failed';
  }

  /** Delivers what is pending for every subscription of the budget (one chain per subscription). */
  async deliverBudget(budgetId: string): Promise<void> {
    const subs = (await this.all().catch(() => [])).filter((s) => s.budgetId === budgetId && s.status.active);
    await Promise.all(subs.map((s) => this.deliver(s.id)));
  }

  deliver(id: string): Promise<void> {
    const next = (this.chains.get(id) ?? Promise.resolve()).then(() => this.drain(id)).catch(() => {});
    this.chains.set(id, next);
    return next;
  }

  private async drain(id: string): Promise<void> {
    const s = await this.read(id);
    if (!s || !s.status.active || s.expiresAt <= this.now()) return;
    if (isQuiet(await this.events.settings.get(), new Date(this.now()))) return;
    let replica: BudgetReplica | undefined;
    try {
      replica = (await this.events.refresh(s.budgetId)).replica;
    } catch (e) {
      // The budget cannot be read any more (access revoked, budget gone): the subscription ends.
      const ending = endingOf(e);
      if (ending) return this.terminate(id, ending);
    }
    const state = await this.events.log.read(s.budgetId);
    // §Cursor Lifecycle, Gaps and `truncated`: a position the log no longer keeps (or another log's,
    // made anew) is a gap found between refreshes: a `gap` envelope with the fresh cursor (where
    // delivery resumes: just before the oldest kept), then delivery goes on from there.
    let through = s.through;
    const kept = (state.events[0]?.seq ?? state.seq + 1) - 1;
    if (s.epoch !== state.epoch || through < kept) {
      const moved = (x: Subscription) => ({ ...x, epoch: state.epoch, through: kept });
      if (!takesControlEnvelopes(s.dialect)) await this.change(id, (x) => ({ ...moved(x), gapped: true }));
      else if (!(await this.attempt(id, controlId('gap'), gapBody(cursorOf(state, kept)), moved))) return;
      through = kept;
    }
    const pending = state.events.filter((o) => o.seq > through && o.name === s.name && (!replica || matches(o, s.arguments, replica)));
    for (const o of pending) {
      const body = JSON.stringify({ eventId: o.eventId, name: o.name, timestamp: o.timestamp, data: o.data, cursor: cursorOf(state, o.seq) });
      if (!(await this.attempt(id, o.eventId, body, (x) => ({ ...x, through: Math.max(x.through, o.seq) })))) return;
      if (s.client) await this.events.pulls.delivered(s.budgetId, s.client, [o.eventId]);
    }
    // Nothing pending for it past the head: the position moves to the head (the watermark).
    await this.change(id, (x) => (x.epoch === state.epoch ? { ...x, through: Math.max(x.through, state.seq) } : x));
  }

  /**
   * One body to one subscription, retried, each try signed anew; false when delivery stopped (gone,
   * or failing now). Delivered, or refused for good (410, 413), `done` moves the position past it.
   */
  private async attempt(id: string, messageId: string, body: string, done: (s: Subscription) => Subscription): Promise<boolean> {
    const delays = this.opts.retryDelaysMs ?? [1_000, 5_000, 25_000];
    let outcome: Outcome = 'connection_refused';
    for (let i = 0; i <= delays.length; i++) {
      const s = await this.read(id);
      if (!s || s.expiresAt <= this.now()) return false;
      ({ outcome } = await this.send(s, messageId, body));
      if (outcome === 'ok' || outcome === 'gone' || outcome === 'too_large') {
        const at = new Date(this.now()).toISOString();
        // 410 and 413 are final for this body only (SEP-3415): it is abandoned, the subscription goes on.
        const status = (x: Subscription) => (outcome === 'ok' ? { active: true, lastDeliveryAt: at, lastError: null } : { ...x.status, lastError: 'http_4xx' });
        const recorded = (await this.change(id, (x) => ({ ...done(x), status: status(x) }))) !== undefined;
        // Told once the position has moved past it: a delivery counted is one no instance sends again.
        this.onDelivery?.(outcome);
        return recorded;
      }
      this.onDelivery?.(outcome);
      if (i < delays.length) await new Promise((r) => setTimeout(r, delays[i]).unref());
    }
    const since = new Date(this.now()).toISOString();
    const lastError = outcome === 'blocked' ? 'connection_refused' : outcome;
    await this.change(id, (x) => ({ ...x, status: { ...x.status, active: false, lastError, failedSince: x.status.failedSince ?? since } }));
    return false;
  }

  /**
   * §Subscription Termination: the subscription is removed first (nothing more is delivered, a
   * refresh is a fresh subscribe), then told in a signed `terminated` envelope, tried as an event is.
   */
  async terminate(id: string, ending: Ending): Promise<void> {
    const s = await this.read(id);
    if (!s || !(await this.remove(id))) return;
    if (!takesControlEnvelopes(s.dialect)) return; // ChatGPT takes none: its next refresh is a fresh subscribe
    const messageId = controlId('terminated');
    const delays = this.opts.retryDelaysMs ?? [1_000, 5_000, 25_000];
    for (let i = 0; i <= delays.length; i++) {
      const { outcome } = await this.send(s, messageId, terminatedBody({ ...ending, code: codeIn(s.dialect ?? 'sep', ending.code) }));
      this.onDelivery?.(outcome);
      if (outcome === 'ok' || outcome === 'gone' || outcome === 'too_large') return;
      if (i < delays.length) await new Promise((r) => setTimeout(r, delays[i]).unref());
    }
  }

  /**
   * A read of the budget failed (the watcher's sync, say): when it says the budget can no longer be
   * read with this sign-in, every subscription to it ends; true when they did.
   */
  async readFailed(budgetId: string, error: unknown): Promise<boolean> {
    const ending = endingOf(error);
    if (!ending) return false;
    const subs = (await this.all()).filter((s) => s.budgetId === budgetId);
    await Promise.all(subs.map((s) => this.terminate(s.id, ending)));
    return true;
  }
}
