/**
 * A hosted sign-in on its way through YNAB (interactions.ts, steps 2 and 3): the `state` sent to
 * YNAB names a pending sign-in in the state store, and a cookie binds it to the browser that
 * left. Kept in one place because the two together are the defence of the callback: the state
 * must be one this server issued and not yet used, and it must come back to the same browser.
 *
 * The cookie is named per sign-in (two tabs may sign in at once) and valued with an HMAC of the
 * state that only this server can compute. A redirect opened in any other browser (a stolen or
 * planted callback URL: login CSRF) is refused before its state is spent, so the sign-in that owns
 * it still completes. The pending sign-in is taken once: a replayed redirect finds nothing.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { StateStore } from '../storage/store.js';
import { tokenMatches } from '../transport/http-guards.js';
import { INTERACTION_TTL_S } from './authorization-server.js';
import type { HostedOptions } from './options.js';

/** What a sign-in that went to YNAB waits with: its interaction, and whether read-only access was chosen. */
export interface PendingLogin {
  uid: string;
  readOnly: boolean;
}

export interface SigninBinding {
  /** Stores `pending` under a fresh state; the state for YNAB and the Set-Cookie value that binds it to this browser. */
  begin(pending: PendingLogin): Promise<{ state: string; cookie: string }>;
  /** Whether the request comes from the browser that began the sign-in `state` names. */
  heldBy(req: IncomingMessage, state: string): boolean;
  /** The pending sign-in `state` names, taken from the store (once only), or undefined. */
  take(state: string): Promise<PendingLogin | undefined>;
  /** The Set-Cookie value that removes the sign-in's cookie. */
  clearCookie(state: string): string;
}

/** The value of cookie `name` in the request, if it has one. */
function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function signinBinding(store: StateStore, opts: HostedOptions): SigninBinding {
  const pendingKey = (state: string) => `hosted/logins/${opts.dataKey.keyName(`state\n${state}`)}`;
  const signinCookie = (state: string) => {
    const mac = opts.dataKey.keyName(`browser\n${state}`);
    return { name: `ynab_mcp_signin_${mac.slice(0, 12)}`, value: mac };
  };
  const secure = new URL(opts.publicUrl).protocol === 'https:' ? '; Secure' : '';
  const cookieHeader = (state: string, maxAge: number) => {
    const c = signinCookie(state);
    return `${c.name}=${maxAge > 0 ? c.value : ''}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
  };
  return {
    async begin(pending) {
      const state = randomBytes(32).toString('base64url');
      const key = pendingKey(state);
      await store.set(key, opts.dataKey.sealJson(pending, key), { ttlMs: INTERACTION_TTL_S * 1000 });
      return { state, cookie: cookieHeader(state, INTERACTION_TTL_S) };
    },
    heldBy(req, state) {
      const bound = signinCookie(state);
      return tokenMatches(bound.value, cookieOf(req, bound.name));
    },
    take(state) {
      const key = pendingKey(state);
      return store.update(key, (bytes) => ({
        value: bytes === undefined ? undefined : null,
        result: opts.dataKey.openJson<PendingLogin>(bytes, key),
      }));
    },
    clearCookie: (state) => cookieHeader(state, 0),
  };
}
