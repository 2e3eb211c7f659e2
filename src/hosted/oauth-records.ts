/**
 * Where the authorization server keeps its records (oidc-provider's adapter interface), in the
 * state store, so that any instance can serve any step of a sign-in: the authorization request
 * on one, the consent on another, the token exchange on a third.
 *
 *   oauth/<Model>/<name>          one record (access token, refresh token, code, client, grant,
 *                                 interaction, session), sealed with the data key: the payload
 *                                 holds the token value itself. <name> is a keyed hash of the id,
 *                                 so key names cannot be turned back into tokens.
 *   oauth/grant-index/<name>      the records issued under one grant, to revoke them together
 *   oauth/uid/<name>              a session's uid → its id
 * Records expire with their artifact (Redis ttl). Clients, which oidc-provider keeps forever, go
 * after CLIENT_IDLE_DAYS unused (each use renews them): dynamic registration is open to anyone,
 * so unused registrations must not pile up in Redis. `consume` is atomic across instances and
 * refuses a second consumption with invalid_grant, so an authorization code or a rotated refresh
 * token is redeemed once even when two instances receive it at the same moment.
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';
import type { DataKey } from './sealing.js';

/** Records that belong to a grant and go when it is revoked. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

interface IndexEntry {
  key: string;
  /** Epoch ms after which the record is gone anyway. */
  exp: number;
}

const FOREVER = Number.MAX_SAFE_INTEGER;

/** A registered client (or a cached client metadata document) unused this long is forgotten; it registers again. */
export const CLIENT_IDLE_DAYS = 30;
const CLIENT_TTL_MS = CLIENT_IDLE_DAYS * 24 * 3600 * 1000;

export function storeAdapter(store: StateStore, key: DataKey, now: () => number = Date.now): (model: string) => Adapter {
  const recordKey = (model: string, id: string) => `oauth/${model}/${key.keyName(`${model}\n${id}`)}`;
  const uidKey = (uid: string) => `oauth/uid/${key.keyName(`uid\n${uid}`)}`;
  const grantKey = (grantId: string) => `oauth/grant-index/${key.keyName(`grant\n${grantId}`)}`;
  const ttlOf = (expiresIn: number | undefined) => (typeof expiresIn === 'number' && expiresIn > 0 ? { ttlMs: expiresIn * 1000 } : {});

  return (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      const k = recordKey(model, id);
      await store.set(
        k,
        key.sealJson(payload, k),
        model === 'Client' && !(typeof expiresIn === 'number' && expiresIn > 0) ? { ttlMs: CLIENT_TTL_MS } : ttlOf(expiresIn),
      );
      const exp = typeof expiresIn === 'number' && expiresIn > 0 ? now() + expiresIn * 1000 : FOREVER;
      if (GRANTABLE.has(model) && payload.grantId) {
        const g = grantKey(payload.grantId);
        const live = (bytes: Uint8Array | undefined, t: number) =>
          ((parseJsonBytes(bytes) as IndexEntry[] | undefined) ?? []).filter((e) => e.exp > t && e.key !== k);
        // The index lives as long as its longest-lived record (read first: an update's ttl is fixed).
        const last = Math.max(exp, ...live(await store.get(g), now()).map((e) => e.exp));
        await store.update(
          g,
          (bytes) => ({ value: jsonBytes([...live(bytes, now()), { key: k, exp }]), result: undefined }),
          last === FOREVER ? {} : { ttlMs: last - now() + 60_000 },
        );
      }
      if (model === 'Session' && payload.uid) {
        const u = uidKey(payload.uid);
        await store.set(u, key.sealJson(id, u), ttlOf(expiresIn));
      }
    },

    async find(id) {
      const k = recordKey(model, id);
      const bytes = await store.get(k);
      // A client in use stays: its idle time starts again.
      if (model === 'Client' && bytes) await store.set(k, bytes, { ttlMs: CLIENT_TTL_MS });
      return key.openJson<AdapterPayload>(bytes, k);
    },

    async findByUid(uid) {
      const u = uidKey(uid);
      const id = key.openJson<string>(await store.get(u), u);
      if (typeof id !== 'string') return undefined;
      const k = recordKey(model, id);
      return key.openJson<AdapterPayload>(await store.get(k), k);
    },

    async findByUserCode() {
      return undefined; // the device flow is not offered
    },

    async consume(id) {
      const k = recordKey(model, id);
      const outcome = await store.update<'consumed' | 'twice' | 'gone'>(
        k,
        (bytes) => {
          const payload = key.openJson<AdapterPayload>(bytes, k);
          if (!payload) return { value: undefined, result: 'gone' };
          if (payload.consumed) return { value: undefined, result: 'twice' };
          payload.consumed = Math.floor(now() / 1000);
          return { value: key.sealJson(payload, k), result: 'consumed' };
        },
        // Keep the record's own expiry (a compare-and-set rewrites the value and its ttl).
        await (async () => {
          const payload = key.openJson<AdapterPayload>(await store.get(k), k);
          return payload?.exp ? { ttlMs: Math.max(1_000, payload.exp * 1000 - now()) } : {};
        })(),
      );
      // Another instance redeemed it a moment ago: this redemption loses, with a proper OAuth error.
      if (outcome === 'twice') throw new errors.InvalidGrant(`${model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`);
    },

    async destroy(id) {
      await store.delete(recordKey(model, id));
    },

    async revokeByGrantId(grantId) {
      const g = grantKey(grantId);
      const entries = (parseJsonBytes(await store.get(g)) as IndexEntry[] | undefined) ?? [];
      await Promise.all(entries.map((e) => store.delete(e.key)));
      await store.delete(g);
    },
  });
}
