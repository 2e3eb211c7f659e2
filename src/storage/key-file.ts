/**
 * A 32-byte key kept in a 0600 file in the state directory: the replica key when no keychain
 * holds it (src/sync/persist.ts), the key that signs 2025-era HTTP session ids (src/mcp/session-id.ts).
 * Created once, atomically, by whichever process comes first (two processes starting together
 * agree on one key), so a restarted process reads the key it had; never read or written through
 * a link (safe-fs.ts).
 */
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { createOnce, privateDir, readNoFollow, removeFile, type Warn } from './safe-fs.js';

const stderr: Warn = (m) => void process.stderr.write(`${m}\n`);

export interface FileKey {
  key(): Promise<Buffer>;
}

/** The key in `path` (made on first use); `what` names the file in warnings and errors. */
export function fileKey(path: string, warn: Warn = stderr, what = 'replica key file'): FileKey {
  let cached: Promise<Buffer> | undefined;
  const load = async (): Promise<Buffer> => {
    privateDir(dirname(path), dirname(path), warn);
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored = await readNoFollow(path, warn); // a link there is removed, never followed
      if (stored !== undefined) {
        const raw = Buffer.from(stored.toString('utf8').trim(), 'base64');
        if (raw.length === 32) return raw;
        // Not a key of ours: replace it (what it protected, if anything, is made again).
        warn(`ynab-mcp: the ${what} ${path} did not hold a key; a new one was made`);
        await removeFile(path);
      }
      const fresh = randomBytes(32);
      if (await createOnce(path, fresh.toString('base64'))) return fresh;
    }
    throw new Error(`could not create the ${what} ${path}`);
  };
  return {
    key() {
      cached ??= load().catch((e: unknown) => {
        cached = undefined;
        throw e;
      });
      return cached;
    },
  };
}
