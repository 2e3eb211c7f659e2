/**
 * A 32-byte key kept in a 0600 file in the state directory: the replica key when no keychain
 * holds it (src/sync/persist.ts), the key that signs 2025-era HTTP session ids (src/transport/session-id.ts).
 * Created once, atomically, by whichever process comes first (two processes starting together
 * agree on one key), so a restarted process reads the key it had; never read or written through
 * a link (safe-fs.ts).
 * A key file that cannot be read or made (a directory in its place, no permission, a full disk)
 * is a KeyUnavailableError naming the file and what to do: the caller works without what the key
 * protects, and says so, instead of failing.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname } from 'node:path';
import { createOnce, errCode, privateDir, readNoFollow, reasonOf, removeFile, type Warn } from './safe-fs.js';
import { KeyUnavailableError } from './store.js';

const stderr: Warn = (m) => void process.stderr.write(`${m}\n`);

export interface FileKey {
  key(): Promise<Buffer>;
}

/** The key in a key file's text, or undefined when the text holds none. */
function keyIn(stored: Buffer): Buffer | undefined {
  const raw = Buffer.from(stored.toString('utf8').trim(), 'base64');
  return raw.length === 32 ? raw : undefined;
}

/** The key in `path` (made on first use); `what` names the file in warnings and errors. */
export function fileKey(path: string, warn: Warn = stderr, what = 'replica key file'): FileKey {
  let cached: Promise<Buffer> | undefined;
  const unavailable = (verb: string, e: unknown): KeyUnavailableError => {
    const at = (e as { path?: unknown })?.path;
    const where = typeof at === 'string' && at !== path && !at.endsWith('.tmp') ? ` at ${at}` : '';
    return new KeyUnavailableError(
      verb === 'read' ? 'read' : 'write',
      path,
      `the ${what} ${path} cannot be ${verb} (${reasonOf(e)}${where}). Fix or remove it (a new key is then made), ` +
        `or set YNAB_MCP_STATE_DIR to a directory of your own.`,
      { cause: e },
    );
  };
  const load = async (): Promise<Buffer> => {
    try {
      privateDir(dirname(path), dirname(path), warn);
    } catch (e) {
      throw unavailable('read', e);
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      let stored: Buffer | undefined;
      try {
        stored = await readNoFollow(path, warn); // a link there is removed, never followed
      } catch (e) {
        throw unavailable('read', e);
      }
      if (stored !== undefined) {
        const raw = keyIn(stored);
        if (raw) return raw;
        // Not a key of ours: replace it (what it protected, if anything, is made again).
        warn(`ynab-mcp: the ${what} ${path} did not hold a key; a new one was made`);
        await removeFile(path).catch((e: unknown) => {
          throw unavailable('replaced', e);
        });
      }
      const fresh = randomBytes(32);
      try {
        if (await createOnce(path, fresh.toString('base64'))) return fresh;
      } catch (e) {
        throw unavailable('written', e);
      }
    }
    throw new KeyUnavailableError('write', path, `the ${what} ${path} could not be made: it kept changing while ynab-mcp wrote it; try again`);
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

/**
 * What is wrong with the key file at `path`, or null when it holds a key or is not there yet (it
 * is made at first use). Changes nothing: for `ynab-mcp status`.
 */
export async function keyFileProblem(path: string): Promise<string | null> {
  let st;
  try {
    st = await lstat(path);
  } catch (e) {
    return errCode(e) === 'ENOENT' ? null : unreadable(e);
  }
  if (st.isSymbolicLink()) return 'it is a symbolic link, which is never followed (it is replaced by a new key at the next start)';
  if (!st.isFile()) return unreadable({ code: st.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
  try {
    const fh = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      return keyIn(await fh.readFile()) ? null : 'it does not hold a key (a new one is made at the next start, and saved copies are fetched again)';
    } finally {
      await fh.close();
    }
  } catch (e) {
    return unreadable(e);
  }
}

function unreadable(e: unknown): string {
  return `it cannot be read (${reasonOf(e)}): until it can, budgets are fetched from YNAB and no copy is saved. Fix or remove it (a new key is then made)`;
}
