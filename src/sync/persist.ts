/**
 * Replicas saved to the state directory after each sync, so that a restarted server needs one
 * delta request instead of a full export. Files are gzip'd JSON encrypted with AES-256-GCM; the
 * key lives in the OS keychain (via the secret store) or, without one, in a 0600 key file. The
 * file name and the token's key are bound in as associated data, so a file copied to another
 * name or token does not decrypt. A file that fails to decrypt or parse is removed and the
 * budget is fetched again: never a crash.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { ensurePrivateDir } from '../paths.js';
import type { ReplicaSnapshot } from './replica.js';

const MAGIC = Buffer.from('YMCPR1\n');
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export interface KeySource {
  key(): Promise<Buffer>;
}

/** A 32-byte key kept in a 0600 file (used when no keychain holds it). */
export function fileKey(path: string): KeySource {
  let cached: Buffer | undefined;
  return {
    async key() {
      if (cached) return cached;
      if (existsSync(path)) {
        const raw = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
        if (raw.length === 32) return (cached = raw);
      }
      cached = randomBytes(32);
      writeFileSync(path, cached.toString('base64'), { mode: 0o600 });
      chmodSync(path, 0o600);
      return cached;
    },
  };
}

/** A key kept as a named secret (the OS keychain when there is one). */
export function secretKey(get: () => Promise<string | null>, set: (value: string) => Promise<void>): KeySource {
  let cached: Promise<Buffer> | undefined;
  return {
    key() {
      cached ??= (async () => {
        const stored = await get();
        const raw = stored ? Buffer.from(stored, 'base64') : undefined;
        if (raw?.length === 32) return raw;
        const fresh = randomBytes(32);
        await set(fresh.toString('base64'));
        return fresh;
      })();
      return cached;
    },
  };
}

export class ReplicaFiles {
  constructor(
    private readonly dir: string,
    private readonly keys: KeySource,
    private readonly warn: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {}

  private path(tokenKey: string, budgetId: string): string {
    return join(this.dir, tokenKey, `${budgetId.replace(/[^0-9a-zA-Z-]/g, '_')}.replica`);
  }

  private aad(tokenKey: string, budgetId: string): Buffer {
    return Buffer.from(`${tokenKey}/${budgetId}`);
  }

  async save(tokenKey: string, snapshot: ReplicaSnapshot): Promise<void> {
    const file = this.path(tokenKey, snapshot.summary.id);
    ensurePrivateDir(join(this.dir, tokenKey));
    const plain = await gzipAsync(Buffer.from(JSON.stringify(snapshot)));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.keys.key(), iv);
    cipher.setAAD(this.aad(tokenKey, snapshot.summary.id));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]), { mode: 0o600 });
    await rename(tmp, file);
  }

  /** The saved snapshot, or undefined when there is none or it cannot be used (then it is removed). */
  async load(tokenKey: string, budgetId: string): Promise<ReplicaSnapshot | undefined> {
    const file = this.path(tokenKey, budgetId);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      return undefined;
    }
    try {
      if (bytes.length < MAGIC.length + 28 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a replica file');
      const iv = bytes.subarray(MAGIC.length, MAGIC.length + 12);
      const tag = bytes.subarray(MAGIC.length + 12, MAGIC.length + 28);
      const decipher = createDecipheriv('aes-256-gcm', await this.keys.key(), iv);
      decipher.setAAD(this.aad(tokenKey, budgetId));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(bytes.subarray(MAGIC.length + 28)), decipher.final()]);
      const snapshot = JSON.parse((await gunzipAsync(plain)).toString('utf8')) as ReplicaSnapshot;
      if (snapshot?.summary?.id !== budgetId || typeof snapshot.knowledge !== 'number' || !Array.isArray(snapshot.transactions)) {
        throw new Error('unexpected content');
      }
      return snapshot;
    } catch (e) {
      this.warn(`ynab-mcp: the saved copy of budget ${budgetId} could not be read (${(e as Error).message}); it was removed and the budget will be fetched again`);
      await rm(file, { force: true });
      return undefined;
    }
  }

  /** Which budget `last-used` / `default` named at the last sync, so a restart can start from its saved copy. */
  async loadAliases(tokenKey: string): Promise<Record<string, string>> {
    try {
      const parsed = JSON.parse(await readFile(join(this.dir, tokenKey, 'aliases.json'), 'utf8')) as unknown;
      if (!parsed || typeof parsed !== 'object') return {};
      return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    } catch {
      return {};
    }
  }

  async saveAliases(tokenKey: string, aliases: Record<string, string>): Promise<void> {
    ensurePrivateDir(join(this.dir, tokenKey));
    const file = join(this.dir, tokenKey, 'aliases.json');
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(aliases), { mode: 0o600 });
    await rename(tmp, file);
  }

  async remove(tokenKey: string, budgetId: string): Promise<void> {
    await rm(this.path(tokenKey, budgetId), { force: true });
  }
}
