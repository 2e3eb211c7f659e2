/**
 * Access tokens the sandbox accepts: personal tokens (one full, one read-only per user) that
 * never expire, and OAuth grants that expire and can be refreshed. Every token acts for one user.
 * A refresh token is single use in the service's sense: it is revoked the first time the access
 * token obtained with it is used. Every change to a grant or refresh token is told to `onChange`
 * (it is state the sandbox saves before answering).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenInfo } from './state.js';

export interface Grant {
  id: string;
  kind: 'personal' | 'oauth';
  /** The user the token acts for. */
  user_id: string;
  scope: 'full' | 'read-only';
  access_token: string;
  /** Epoch ms; null for personal tokens. */
  expires_at: number | null;
  refresh_token: string | null;
  /** The refresh token this grant was obtained with; revoked on this grant's first use. */
  parent_refresh_token: string | null;
  revoked: boolean;
  default_budget_id: string | null;
}

/** active: usable; exchanged: used once, its new access token not yet used; used: revoked. */
export type RefreshStatus = 'active' | 'exchanged' | 'used';

export interface RefreshEntry {
  token: string;
  status: RefreshStatus;
  /** The grant it refreshes: the one it was issued with, then the one it was exchanged for. */
  grant_id: string;
}

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

/** Grant ids are derived from the token so that logs and rate limits can name a grant without the token. */
const grantIdOf = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 16);

export type Authentication = { ok: true; info: TokenInfo; grant: Grant } | { ok: false; detail: string };

export type TokenChange = { grant: Grant } | { refresh: RefreshEntry };

export class TokenRegistry {
  private readonly byAccess = new Map<string, Grant>();
  private readonly byId = new Map<string, Grant>();
  private readonly refreshTokens = new Map<string, RefreshEntry>();
  /** Told about every grant and refresh token that was issued or changed. */
  onChange: (change: TokenChange) => void = () => {};

  constructor(
    private readonly clock: () => number,
    readonly ttlSeconds: number,
  ) {}

  snapshot(): { grants: Grant[]; refresh_tokens: RefreshEntry[] } {
    return { grants: [...this.byAccess.values()], refresh_tokens: [...this.refreshTokens.values()] };
  }

  /** Puts back saved grants and refresh tokens (a newer copy of one replaces the older). */
  restore(s: { grants: Grant[]; refresh_tokens: RefreshEntry[] }): void {
    for (const g of s.grants) this.add(g);
    for (const r of s.refresh_tokens) this.refreshTokens.set(r.token, r);
  }

  private add(grant: Grant): Grant {
    const old = this.byId.get(grant.id);
    if (old) this.byAccess.delete(old.access_token);
    this.byAccess.set(grant.access_token, grant);
    this.byId.set(grant.id, grant);
    return grant;
  }

  private grantChanged(grant: Grant): void {
    this.onChange({ grant });
  }

  private refreshChanged(entry: RefreshEntry): void {
    this.onChange({ refresh: entry });
  }

  addPersonal(token: string, scope: Grant['scope'], userId: string): Grant {
    return this.add({
      id: grantIdOf(token),
      kind: 'personal',
      user_id: userId,
      scope,
      access_token: token,
      expires_at: null,
      refresh_token: null,
      parent_refresh_token: null,
      revoked: false,
      default_budget_id: null,
    });
  }

  issueOAuth(scope: Grant['scope'], withRefresh: boolean, userId: string, defaultBudgetId: string | null, parentRefresh: string | null = null): Grant {
    const access = newSecret('sbx_oauth_');
    const grant = this.add({
      id: grantIdOf(access),
      kind: 'oauth',
      user_id: userId,
      scope,
      access_token: access,
      expires_at: this.clock() + this.ttlSeconds * 1000,
      refresh_token: withRefresh ? newSecret('sbx_refresh_') : null,
      parent_refresh_token: parentRefresh,
      revoked: false,
      default_budget_id: defaultBudgetId,
    });
    this.grantChanged(grant);
    if (grant.refresh_token) {
      const entry: RefreshEntry = { token: grant.refresh_token, status: 'active', grant_id: grant.id };
      this.refreshTokens.set(grant.refresh_token, entry);
      this.refreshChanged(entry);
    }
    return grant;
  }

  /** Checks a bearer token. The first use of a refreshed token revokes the refresh token it came from. */
  authenticate(token: string | undefined): Authentication {
    if (!token) return { ok: false, detail: 'no access token: send "Authorization: Bearer <token>" or the access_token query parameter' };
    const grant = this.byAccess.get(token);
    if (!grant) return { ok: false, detail: 'the access token is not valid' };
    if (grant.revoked) return { ok: false, detail: 'the access token has been revoked' };
    if (grant.expires_at !== null && this.clock() >= grant.expires_at) return { ok: false, detail: 'the access token has expired' };
    if (grant.parent_refresh_token) {
      const parent = this.refreshTokens.get(grant.parent_refresh_token);
      if (parent) {
        parent.status = 'used';
        this.refreshChanged(parent);
      }
      grant.parent_refresh_token = null;
      this.grantChanged(grant);
    }
    return { ok: true, grant, info: { grantId: grant.id, scope: grant.scope, userId: grant.user_id, defaultBudgetId: grant.default_budget_id } };
  }

  /** Exchanges a refresh token for a new pair; the access token it last produced stops working. */
  refresh(refreshToken: string): Grant | { error: string } {
    const entry = this.refreshTokens.get(refreshToken);
    if (!entry) return { error: 'the refresh token is not valid' };
    if (entry.status === 'used') return { error: 'the refresh token has already been used or was revoked' };
    const previous = this.byId.get(entry.grant_id);
    if (!previous) return { error: 'the refresh token is not valid' };
    previous.revoked = true;
    this.grantChanged(previous);
    const next = this.issueOAuth(previous.scope, true, previous.user_id, previous.default_budget_id, refreshToken);
    entry.status = 'exchanged';
    entry.grant_id = next.id;
    this.refreshChanged(entry);
    return next;
  }

  /**
   * Revokes an OAuth access or refresh token (RFC 7009: an unknown token is not an error).
   * Personal tokens were not issued to the OAuth client, so it cannot revoke them.
   */
  revoke(token: string): void {
    const grant = this.byAccess.get(token);
    if (grant?.kind === 'oauth' && !grant.revoked) {
      grant.revoked = true;
      this.grantChanged(grant);
    }
    const entry = this.refreshTokens.get(token);
    if (entry) {
      entry.status = 'used';
      this.refreshChanged(entry);
      const g = this.byId.get(entry.grant_id);
      if (g && !g.revoked) {
        g.revoked = true;
        this.grantChanged(g);
      }
    }
  }
}
