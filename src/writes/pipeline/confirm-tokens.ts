/**
 * Confirm tokens: what lets a held write through. A preview issues one, bound to
 *  - the tool and its canonical arguments (names resolved to ids, the token itself left out),
 *  - the budget,
 *  - the state of every entity the change touches, as the preview showed it;
 * valid for 5 minutes and usable once. The same call with the token applies the change; a token
 * used with other arguments, a second time, after it expired, or after the entities changed is
 * refused, each with its own message, and nothing is changed.
 *
 * Records live in the state store (so every process and hosted instance sharing it agrees),
 * one key per token under the budget, named by a hash of the token (the store never holds the
 * token itself), sealed like the replicas since they hold the preview's entities (budget text),
 * written with a ttl that outlives the validity so that "expired" and "already used" can still
 * be told apart from "unknown" for a while. Redeeming is one atomic update: of two concurrent
 * confirms with one token, exactly one gets through.
 * The clock is injectable: validity is checked against it, not against the store's own ttl.
 */
import { createHash, randomBytes } from 'node:crypto';
import { confirmKey, confirmPrefix } from '../../storage/keys.js';
import type { StateStore } from '../../storage/store.js';
import type { KeySource } from '../../sync/seal.js';
import { SealedRecords } from './sealed-records.js';
import { changedFields, describeEntity, differenceText, type EntityChange, type Shown } from './entities.js';

export const TOKEN_TTL_MS = 5 * 60_000;
/** How long a used or expired token is still remembered as such. */
const REMEMBER_MS = 60 * 60_000;
const MAGIC = Buffer.from('YMCPT1\n');

/** What a token is bound to. */
export interface Binding {
  tool: string;
  budgetId: string;
  /** The tool's canonical arguments (ids, milliunits), without confirm_token. */
  args: Record<string, unknown>;
  /** The entities as the preview showed them (their `before`), and what the change does. */
  entities: EntityChange[];
}

interface TokenRecord {
  tool: string;
  args: Record<string, unknown>;
  argsDigest: string;
  stateDigest: string;
  entities: EntityChange[];
  issuedAt: number;
  expiresAt: number;
  usedAt?: number;
}

/** A token that cannot be used, with the reason in words; nothing was changed. */
export class ConfirmRefusedError extends Error {
  override readonly name = 'ConfirmRefusedError';
}

/** Canonical JSON: keys sorted at every level, so equal arguments give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

export function argsDigest(b: Pick<Binding, 'tool' | 'budgetId' | 'args'>): string {
  return digest(`ynab-mcp/confirm/args/v1\n${b.tool}\n${b.budgetId}\n${canonical(b.args)}`);
}

/** The entities' states as the preview saw them: what "changed in between" is measured against. */
export function stateDigest(entities: readonly EntityChange[]): string {
  const seen = entities.map((e) => [e.kind, e.id, e.action, e.before]).sort((a, b) => canonical(a).localeCompare(canonical(b)));
  return digest(`ynab-mcp/confirm/state/v1\n${canonical(seen)}`);
}

/** The arguments whose values differ between two canonical argument sets, by name. */
function differingArgs(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => canonical(a[k]) !== canonical(b[k]));
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

type Redeemed = { ok: true } | { ok: false; why: string };

export class ConfirmTokens extends SealedRecords {
  constructor(store: StateStore, keys: KeySource, identity: () => Promise<string>, now: () => number = Date.now) {
    super(store, keys, identity, now, MAGIC);
  }

  private async key(budgetId: string, token: string): Promise<string> {
    return confirmKey(await this.identity(), budgetId, digest(`ynab-mcp/confirm/token/v1\n${token}`).slice(0, 40));
  }

  /** Issues a token for a preview. */
  async issue(b: Binding): Promise<{ token: string; expiresAt: string }> {
    await this.sweep(b.budgetId).catch(() => undefined); // old records only cost space
    const now = this.now();
    const expiresAt = now + TOKEN_TTL_MS;
    // The expiry is readable in the token itself, so that an expired token whose record is gone still says so.
    const token = `ct1.${expiresAt.toString(36)}.${randomBytes(18).toString('base64url')}`;
    const record: TokenRecord = {
      tool: b.tool,
      args: b.args,
      argsDigest: argsDigest(b),
      stateDigest: stateDigest(b.entities),
      entities: b.entities,
      issuedAt: now,
      expiresAt,
    };
    const key = await this.key(b.budgetId, token);
    await this.store.set(key, await this.sealer.seal(Buffer.from(JSON.stringify(record)), key), { ttlMs: TOKEN_TTL_MS + REMEMBER_MS });
    return { token, expiresAt: when(expiresAt) };
  }

  /**
   * Uses a token for the call `b` whose entities are now as `b.entities` say (read fresh).
   * Throws ConfirmRefusedError saying why when it cannot be used; a token used with other
   * arguments stays usable for its own call, one whose entities changed is spent.
   */
  async redeem(token: string, b: Binding, shown: Shown): Promise<void> {
    if (!/^ct1\.[0-9a-z]{1,12}\.[A-Za-z0-9_-]{10,60}$/.test(token)) {
      throw new ConfirmRefusedError(
        'confirm_token is not a token this server issues. Nothing was changed. Call again without confirm_token for a preview and a token.',
      );
    }
    const key = await this.key(b.budgetId, token);
    const secret = await this.sealer.key();
    const now = this.now();
    const wantArgs = argsDigest(b);
    const wantState = stateDigest(b.entities);
    const outcome = await this.store.update<Redeemed>(
      key,
      (bytes) => {
        if (!bytes) return { value: undefined, result: { ok: false, why: this.unknown(token, now) } };
        let record: TokenRecord;
        try {
          record = JSON.parse(this.sealer.openSync(secret, bytes, key).toString('utf8')) as TokenRecord;
        } catch {
          return { value: undefined, result: { ok: false, why: this.unknown(token, now) } };
        }
        const reseal = (r: TokenRecord) => this.sealer.sealSync(secret, Buffer.from(JSON.stringify(r)), key);
        if (record.usedAt !== undefined) {
          return {
            value: undefined,
            result: {
              ok: false,
              why: `confirm_token was already used at ${when(record.usedAt)}: a token applies its change once. Nothing was changed; list_recent_changes shows what was applied.`,
            },
          };
        }
        if (record.tool !== b.tool) {
          return { value: undefined, result: { ok: false, why: `confirm_token was issued for ${record.tool}, not ${b.tool}. Nothing was changed.` } };
        }
        if (record.argsDigest !== wantArgs) {
          const args = differingArgs(record.args, b.args);
          return {
            value: undefined,
            result: {
              ok: false,
              why: `confirm_token was issued for ${b.tool} with other arguments (${args.length ? `${args.join(', ')} differ${args.length === 1 ? 's' : ''}` : 'another budget'}): it confirms exactly the call that was previewed. Nothing was changed. Call again with the previewed arguments and the token, or without confirm_token for a new preview.`,
            },
          };
        }
        if (now >= record.expiresAt) {
          return {
            value: undefined,
            result: {
              ok: false,
              why: `confirm_token expired at ${when(record.expiresAt)} (tokens are valid for 5 minutes). Nothing was changed. Call again without confirm_token for a new preview, and show it to the user.`,
            },
          };
        }
        if (record.stateDigest !== wantState) {
          // It can never match again: spend it.
          return { value: reseal({ ...record, usedAt: now }), result: { ok: false, why: changedSince(record.entities, b.entities, shown) } };
        }
        return { value: reseal({ ...record, usedAt: now }), result: { ok: true } };
      },
      { ttlMs: REMEMBER_MS },
    );
    if (!outcome.ok) throw new ConfirmRefusedError(outcome.why);
  }

  private unknown(token: string, now: number): string {
    const expires = parseInt(token.split('.')[1] ?? '', 36);
    if (Number.isFinite(expires) && expires <= now) {
      return `confirm_token expired at ${when(expires)} (tokens are valid for 5 minutes). Nothing was changed. Call again without confirm_token for a new preview, and show it to the user.`;
    }
    return 'confirm_token is not one this server issued for this budget. Nothing was changed. Call again without confirm_token for a preview and a token.';
  }

  /** Removes records whose ttl has passed (the file store keeps expired files until then). */
  private async sweep(budgetId: string): Promise<void> {
    const prefix = confirmPrefix(await this.identity(), budgetId);
    for (const key of await this.store.list(prefix)) {
      if ((await this.store.get(key)) === undefined) await this.store.delete(key);
    }
  }
}

/** What changed between the preview and now, naming each entity and field. */
function changedSince(then: EntityChange[], now: EntityChange[], s: Shown): string {
  const key = (e: EntityChange) => `${e.kind}:${e.id}`;
  const before = new Map(then.map((e) => [key(e), e]));
  const after = new Map(now.map((e) => [key(e), e]));
  const lines: string[] = [];
  for (const [k, e] of before) {
    const n = after.get(k);
    if (!n) lines.push(`${describeEntity(e.kind, e.id, e.before, s)} is no longer part of this change`);
    else if (changedFields(e.kind, e.before, n.before).length)
      lines.push(`${describeEntity(e.kind, e.id, e.before, s)}: ${differenceText(e.kind, e.before, n.before, s, 'the preview showed')}`);
  }
  for (const [k, e] of after) if (!before.has(k)) lines.push(`${describeEntity(e.kind, e.id, e.before, s)} is now part of this change`);
  const what = lines.length
    ? lines.slice(0, 10).join('; ') + (lines.length > 10 ? `; and ${lines.length - 10} more` : '')
    : 'what it changes is not as the preview showed it';
  return `the budget changed since the preview (${what}), so confirm_token no longer applies. Nothing was changed. Call again without confirm_token for a new preview, and show it to the user.`;
}
