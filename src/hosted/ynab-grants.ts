/**
 * Each user's YNAB grant (access token, refresh token, expiry, scope), kept in the state store
 * as one record sealed with the data key: `grants/<identity>.json`. The identity is a keyed hash of
 * the user's YNAB id (identityOf), the same name their replicas, journals and MCP tokens carry.
 *
 * `secretsFor` presents a user's grant the way the single-user OAuth token provider
 * (src/auth/oauth-provider.ts) reads its sign-in, so hosted mode refreshes YNAB tokens with the
 * same code: single-flight across instances through the store's lock, the new pair stored before
 * it is used. The OAuth application's id, secret and app URL are the deployment's, not stored per
 * user. YNAB tokens live only here and in the instance that uses them: never in an MCP answer,
 * never in an MCP token, never in a log.
 */
import { createHmac } from 'node:crypto';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import type { DataKey } from './sealing.js';

/** What is kept of a user's YNAB grant, by the names the token provider reads. */
export interface YnabGrant {
  access_token: string;
  refresh_token?: string;
  token_expires_at?: string;
  token_scope?: 'full' | 'read-only';
  /** When the user signed in: a new sign-in replaces what instances hold for the old one. */
  signed_in_at?: string;
}

export interface YnabApp {
  clientId: string;
  clientSecret: string;
  appUrl: string;
}

/**
 * The identity of a YNAB user in this deployment: stable, not their YNAB id, and not a plain hash
 * of it either. It names their keys in Redis (`grants/<identity>.json`, `replicas/<identity>/…`),
 * so it is an HMAC under a key derived from the data key: someone with Redis alone (a dump, a
 * backup) cannot check whether a given YNAB user id has data there.
 */
export function identityOf(key: DataKey, ynabUserId: string, endpoint: 'full' | 'read-only' = 'full'): string {
  // The read-only endpoint's sign-ins are another identity of the same user: their own YNAB grant
  // (read-only), copies and tokens, so that signing in there never replaces the full endpoint's grant.
  const message = endpoint === 'full' ? `ynab-user\n${ynabUserId}` : `ynab-user read-only\n${ynabUserId}`;
  return createHmac('sha256', key.subkey('identities')).update(message).digest('hex').slice(0, 24);
}

export const grantKey = (identity: string): string => `grants/${identity}.json`;
/** The lock src/auth/oauth-provider.ts takes to refresh a grant whose grant_id is `identity`. */
const refreshLockName = (identity: string): string => `oauth-${segment(identity)}`;

export class YnabGrants {
  constructor(
    private readonly store: StateStore,
    private readonly key: DataKey,
    private readonly app: YnabApp,
  ) {}

  async read(identity: string): Promise<YnabGrant | undefined> {
    const k = grantKey(identity);
    const grant = this.key.openJson<YnabGrant>(await this.store.get(k), k);
    return grant && typeof grant.access_token === 'string' ? grant : undefined;
  }

  /**
   * Replaces the user's grant (a new sign-in), under the lock their refreshes take, so that a
   * refresh of the old grant under way elsewhere cannot write its pair over the new one.
   */
  async save(identity: string, grant: YnabGrant): Promise<void> {
    const k = grantKey(identity);
    await this.store.withLock(refreshLockName(identity), () => this.store.set(k, this.key.sealJson(grant, k)));
  }

  /**
   * Keeps the grant of a sign-in in progress under the MCP grant it will be issued under, for
   * `ttlMs` at most: it becomes the user's grant only when the sign-in succeeds (commitStaged, as
   * the authorization code is issued). A sign-in that ends in an error, after YNAB's answer, leaves
   * the user's grant as it was.
   */
  async stage(grantId: string, identity: string, grant: YnabGrant, ttlMs: number): Promise<void> {
    const k = this.stagedKey(grantId);
    await this.store.set(k, this.key.sealJson({ identity, grant }, k), { ttlMs });
  }

  /** Makes the grant staged under `grantId` the user's (once: it is taken); nothing when none is staged. */
  async commitStaged(grantId: string): Promise<void> {
    const k = this.stagedKey(grantId);
    const staged = await this.store.update(k, (bytes) => ({
      value: bytes === undefined ? undefined : null,
      result: this.key.openJson<{ identity: string; grant: YnabGrant }>(bytes, k),
    }));
    if (staged) await this.save(staged.identity, staged.grant);
  }

  /** A sign-in in progress, as the YNAB round trip's pending state (interactions.ts) is. */
  private stagedKey(grantId: string): string {
    return `hosted/logins/${this.key.keyName(`staged grant\n${grantId}`)}`;
  }

  /** Forgets the user's grant: their MCP tokens stop working at the next request (sign in again). */
  async remove(identity: string): Promise<void> {
    await this.store.delete(grantKey(identity));
  }

  /**
   * A user's grant under the secret names of src/auth/oauth-provider.ts. `fresh`: the record as
   * the caller has just read it (the request's authentication, a moment ago), which the reads
   * before the event loop next turns use instead of reading it again: the provider's start on a
   * user's first call on an instance was a Redis round trip of its own after the one that read it.
   */
  secretsFor(
    identity: string,
    fresh?: YnabGrant,
  ): {
    get(name: string): Promise<string | null>;
    set(name: string, value: string): Promise<void>;
    delete(name: string): Promise<boolean>;
  } {
    const k = grantKey(identity);
    // The provider reads the secrets one by one (its start asks for four, one after another): the
    // record read for the first is used by those asked for before the event loop turns, when no
    // other answer can have come in, so they see what one read would. A change forgets it.
    let held: Promise<Record<string, string> | undefined> | undefined;
    const hold = (read: Promise<Record<string, string> | undefined>) => {
      held = read;
      const forget = () => setImmediate(() => held === read && (held = undefined));
      read.then(forget, forget);
      return read;
    };
    // As if read just now: forgotten when the loop turns, as a read is.
    if (fresh) hold(Promise.resolve({ ...fresh } as Record<string, string>));
    const record = () => held ?? hold(this.store.get(k).then((bytes) => this.key.openJson<Record<string, string>>(bytes, k)));
    const change = (name: string, value: string | undefined) => {
      held = undefined;
      return this.store.update(k, (bytes) => {
        const grant = this.key.openJson<Record<string, string>>(bytes, k) ?? {};
        if (value === undefined) delete grant[name];
        else grant[name] = value;
        return { value: this.key.sealJson(grant, k), result: undefined };
      });
    };
    return {
      get: async (name) => {
        switch (name) {
          case 'oauth_client_id':
            return this.app.clientId;
          case 'oauth_client_secret':
            return this.app.clientSecret;
          case 'oauth_app_url':
            return this.app.appUrl;
          case 'token_kind':
            return 'oauth';
          case 'grant_id':
            return identity; // names the refresh lock: one per user, shared by every instance
          default:
            return (await record())?.[name] ?? null;
        }
      },
      set: (name, value) => change(name, value),
      delete: async (name) => {
        await change(name, undefined);
        return true;
      },
    };
  }
}
