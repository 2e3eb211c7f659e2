/**
 * The data key of a hosted deployment (YNAB_MCP_DATA_KEY, 32 random bytes) and what is derived
 * from it. Every instance gets the same key, so every instance can read what another wrote; Redis
 * alone (a dump, a replica, a backup) reveals no budget data and no secret.
 *  - Subkeys by purpose (HKDF-SHA-256): replicas, sealed records, cookie signing, key names,
 *    2025-era session ids (src/transport/session-id.ts). A key
 *    used for one purpose is never used for another.
 *  - seal/open: AES-256-GCM with a random IV; the record's key name is bound in as associated data,
 *    so a sealed value moved to another key (another user's grant) does not open.
 *  - keyName: an HMAC of a secret identifier (an access token, a refresh token, a state value), so
 *    that key names in Redis cannot be turned back into the tokens they index.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('YMCPS1');

export type Purpose = 'replicas' | 'records' | 'cookies' | 'names' | 'sessions' | 'identities';

/** The key as given: 32 bytes in base64, base64url or hex; anything else is refused with how to make one. */
export function parseDataKey(text: string, source: string): Buffer {
  const value = text.trim();
  const candidates = [/^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : undefined, Buffer.from(value, 'base64'), Buffer.from(value, 'base64url')];
  const key = candidates.find((b) => b?.length === 32);
  if (!key || !/^[A-Za-z0-9+/=_-]+$/.test(value)) {
    throw new Error(`${source} must hold 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)`);
  }
  return key;
}

export class DataKey {
  private readonly subkeys = new Map<Purpose, Buffer>();

  constructor(private readonly root: Buffer) {
    if (root.length !== 32) throw new RangeError('the data key must be 32 bytes');
  }

  subkey(purpose: Purpose): Buffer {
    let k = this.subkeys.get(purpose);
    if (!k) this.subkeys.set(purpose, (k = Buffer.from(hkdfSync('sha256', this.root, 'ynab-mcp/hosted/v1', purpose, 32))));
    return k;
  }

  /** A key-name segment for a secret identifier (hex, 40 characters). */
  keyName(secret: string): string {
    return createHmac('sha256', this.subkey('names')).update(secret).digest('hex').slice(0, 40);
  }

  seal(plain: Uint8Array, boundTo: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.subkey('records'), iv);
    cipher.setAAD(Buffer.from(boundTo));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]);
  }

  /** The plain bytes, or undefined when the value is not a sealed record of this key for `boundTo`. */
  open(sealed: Uint8Array, boundTo: string): Buffer | undefined {
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (buf.length < MAGIC.length + 28 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.subkey('records'), buf.subarray(MAGIC.length, MAGIC.length + 12));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(buf.subarray(MAGIC.length + 12, MAGIC.length + 28));
      return Buffer.concat([decipher.update(buf.subarray(MAGIC.length + 28)), decipher.final()]);
    } catch {
      return undefined;
    }
  }

  sealJson(value: unknown, boundTo: string): Buffer {
    return this.seal(Buffer.from(JSON.stringify(value)), boundTo);
  }

  openJson<T>(sealed: Uint8Array | undefined, boundTo: string): T | undefined {
    if (sealed === undefined) return undefined;
    const plain = this.open(sealed, boundTo);
    if (!plain) return undefined;
    try {
      return JSON.parse(plain.toString('utf8')) as T;
    } catch {
      return undefined;
    }
  }
}
