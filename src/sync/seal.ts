/**
 * Sealing what is kept between calls and holds budget data (saved replicas, the undo journal,
 * confirm tokens' previews): AES-256-GCM with a 32-byte key from a KeySource (the OS keychain,
 * else a 0600 key file; see persist.ts and stack.ts), and associated data that binds a sealed
 * value to its name (identity, budget, key), so that a value moved to another name does not
 * open. Layout: magic, 12-byte IV, 16-byte tag, ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface KeySource {
  key(): Promise<Buffer>;
}

/** A key that lives only as long as the process: for throwaway state (the sandbox, tests without saved copies). */
export function ephemeralKey(): KeySource {
  const key = randomBytes(32);
  return { key: async () => key };
}

export class SealError extends Error {
  override readonly name = 'SealError';
}

export class Sealer {
  constructor(
    private readonly keys: KeySource,
    /** Marks what kind of value this is (and its format version); a value of another kind does not open. */
    private readonly magic: Buffer,
  ) {}

  async seal(plain: Uint8Array, aad: string): Promise<Buffer> {
    return sealWith(await this.keys.key(), this.magic, plain, aad);
  }

  /**
   * Seals plain bytes given in pieces (a replica compressed as its JSON is made), so that the
   * whole plain text never exists at once. The tag, known only at the end, goes into the place
   * kept for it in the header: the same layout as seal().
   */
  async sealStream(pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, aad: string): Promise<Buffer> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.keys.key(), iv);
    cipher.setAAD(Buffer.from(aad));
    const parts: Buffer[] = [this.magic, iv, Buffer.alloc(16)];
    for await (const piece of pieces) parts.push(cipher.update(piece));
    parts.push(cipher.final());
    const value = Buffer.concat(parts);
    cipher.getAuthTag().copy(value, this.magic.length + 12);
    return value;
  }

  /** The plain bytes; a SealError when the value is not one of ours or does not open with this key and name. */
  async open(bytes: Uint8Array, aad: string): Promise<Buffer> {
    return openWith(await this.keys.key(), this.magic, bytes, aad);
  }

  /** The key itself, for synchronous sealing inside a store's atomic update. */
  key(): Promise<Buffer> {
    return this.keys.key();
  }

  sealSync(key: Buffer, plain: Uint8Array, aad: string): Buffer {
    return sealWith(key, this.magic, plain, aad);
  }

  openSync(key: Buffer, bytes: Uint8Array, aad: string): Buffer {
    return openWith(key, this.magic, bytes, aad);
  }
}

function sealWith(key: Buffer, magic: Buffer, plain: Uint8Array, aad: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([magic, iv, cipher.getAuthTag(), body]);
}

function openWith(key: Buffer, magic: Buffer, bytes: Uint8Array, aad: string): Buffer {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < magic.length + 28 || !buf.subarray(0, magic.length).equals(magic)) throw new SealError('not a sealed value of this kind');
  const iv = buf.subarray(magic.length, magic.length + 12);
  const tag = buf.subarray(magic.length + 12, magic.length + 28);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(buf.subarray(magic.length + 28)), decipher.final()]);
  } catch (e) {
    throw new SealError(`it does not open with this key and name (${(e as Error).message})`);
  }
}
