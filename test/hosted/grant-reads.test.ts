/**
 * A user's YNAB grant is one sealed record (ynab-grants.ts). The OAuth provider asks for its
 * secrets one by one as it starts (scope, access token, expiry, refresh token): that is one read of
 * the record, not four (each read was a Redis round trip on a user's first call on an instance).
 * A read after the event loop has turned, or after a change, reads the record again. Given the
 * record its request has just read (the authentication's), the provider starts from none.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { oauthProvider } from '../../src/auth/oauth-provider.js';
import { DataKey } from '../../src/hosted/sealing.js';
import { YnabGrants } from '../../src/hosted/ynab-grants.js';
import { FileStateStore } from '../../src/storage/file-store.js';

const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-grant-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The file store, with its reads of each key counted. */
class CountingStore extends FileStateStore {
  readonly reads = new Map<string, number>();
  override async get(key: string): Promise<Uint8Array | undefined> {
    this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
    return super.get(key);
  }
}

/** A counting store holding `identity`'s grant (an hour left, `scope`), and the grant's key. */
async function savedGrant(identity: string, scope: 'full' | 'read-only') {
  const store = new CountingStore(dir);
  const grants = new YnabGrants(store, new DataKey(randomBytes(32)), { clientId: 'c', clientSecret: 's', appUrl: 'http://127.0.0.1:1' });
  const expires = new Date(Date.now() + 3_600_000).toISOString();
  await grants.save(identity, { access_token: 'at-1', refresh_token: 'rt-1', token_expires_at: expires, token_scope: scope, signed_in_at: 'x' });
  return { store, grants, key: `grants/${identity}.json` };
}

it('the provider starts from one read of the grant; a later read or one after a change reads it again', async () => {
  const { store, grants, key } = await savedGrant('u1', 'full');
  const secrets = grants.secretsFor('u1');
  const provider = await oauthProvider({ store: secrets, stateDir: '', state: store });
  expect(await provider.token()).toBe('at-1');
  expect(store.reads.get(key)).toBe(1);

  await new Promise((r) => setImmediate(r));
  expect(await secrets.get('access_token')).toBe('at-1');
  expect(store.reads.get(key)).toBe(2);

  expect(await secrets.get('refresh_token')).toBe('rt-1'); // the same turn: the same read
  expect(store.reads.get(key)).toBe(2);
  await secrets.set('access_token', 'at-2');
  const before = store.reads.get(key)!;
  expect(await secrets.get('access_token')).toBe('at-2');
  expect(store.reads.get(key)).toBe(before + 1);
});

it('a provider started from the grant its request has just read reads none; once the loop turns, it reads again', async () => {
  const { store, grants, key } = await savedGrant('u2', 'read-only');
  const fresh = (await grants.read('u2'))!;
  const before = store.reads.get(key)!;
  const secrets = grants.secretsFor('u2', fresh);
  const provider = await oauthProvider({ store: secrets, stateDir: '', state: store });
  expect(await provider.token()).toBe('at-1');
  expect(provider.scope).toBe('read-only');
  expect(store.reads.get(key)).toBe(before);

  await new Promise((r) => setImmediate(r));
  expect(await secrets.get('refresh_token')).toBe('rt-1');
  expect(store.reads.get(key)).toBe(before + 1);
});
