/**
 * The rules for writing inside the state and configuration directories, implemented once and
 * used by every writer there (the file store, the secrets file, the replica key file, locks).
 * The directories are the user's and only theirs, and nothing is ever written through a link:
 *  - directories are created 0700; one that already exists open to group or others is tightened
 *    to 0700, with one warning naming it; one owned by another user is refused;
 *  - below the root (the directory the user chose, which may itself be a link they made), every
 *    directory is checked with lstat: a symbolic link where a directory of ours belongs is
 *    removed (the link, never its target) and replaced by a real directory, with a warning;
 *  - files are written to a temp file created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, 0600) and
 *    renamed over the target; rename replaces a link planted at the target instead of following it;
 *  - files are read with O_NOFOLLOW: a link where a file belongs is removed and reads as absent;
 *    anything that is not a regular file (a directory, a FIFO) is an error naming the path;
 *  - every link met where a file belongs (read, written over, listed) is said once per path, in
 *    one line on stderr (noticeLink);
 *  - a link or a file where a lock directory goes is removed before locking.
 * The checks are repeated on every write (a few lstat calls): cheap, and a directory removed or
 * replaced while the server runs is noticed and made again.
 */
import { constants, lstatSync, mkdirSync, chmodSync, unlinkSync, statSync } from 'node:fs';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, sep } from 'node:path';

export type Warn = (message: string) => void;

const IS_WINDOWS = process.platform === 'win32';
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Paths this process has already warned about (one warning each, not one per write). */
const warned = new Set<string>();

function warnOnce(warn: Warn, key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  warn(message);
}

/**
 * Says, once per path in this process (not on every read or write), that a symbolic link stands
 * where a file of ours belongs and is ignored; `done` says what became of it.
 */
export function noticeLink(warn: Warn, path: string, done: string): void {
  warnOnce(warn, `link:${path}`, `ynab-mcp: ignoring ${path}: it is a symbolic link, never followed; ${done}`);
}

/** Whether `path` is a symbolic link now (false when it is absent or cannot be looked at). */
export async function isLinkAt(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** A failure of the file system, in words, without quoting any content. */
export function reasonOf(e: unknown): string {
  switch (errCode(e)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'ENOTDIR':
      return 'a file stands where a directory belongs';
    case 'EISDIR':
      return 'a directory stands where a file belongs';
    case 'ENOTFILE':
      return 'it is not a regular file';
    case 'EFOREIGN':
      return 'it belongs to another user';
    default:
      return errCode(e) ?? (e as Error)?.message ?? String(e);
  }
}

function fail(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}

/** Whether an open with O_NOFOLLOW was refused because the path is a link. */
export function isLink(code: string | undefined): boolean {
  // Linux says ELOOP for O_NOFOLLOW on a link, FreeBSD EMLINK, NetBSD EFTYPE.
  return code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE';
}

/** Tightens a directory open to group or others, and refuses one owned by someone else. */
function checkOwnDir(path: string, mode: number, uid: number, warn: Warn): void {
  if (IS_WINDOWS) return;
  if (typeof process.getuid === 'function' && uid !== process.getuid()) throw fail('EFOREIGN', path);
  if ((mode & 0o077) !== 0) {
    chmodSync(path, 0o700);
    warnOnce(
      warn,
      `mode:${path}`,
      `ynab-mcp: ${path} was open to other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); it is now 0700, as ynab-mcp's state is for you only`,
    );
  }
}

/**
 * Makes `dir` a private directory of ours: `root` (the state or config directory) and everything
 * between it and `dir`. Throws a file system error (with `path`) when that is not possible.
 */
export function privateDir(root: string, dir: string, warn: Warn): string {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  } catch (e) {
    if (errCode(e) !== 'EEXIST') throw e; // a file there: reported below, by name
  }
  // The root may be a link the user made (their state on another disk): follow it, but check it.
  const rootStat = statSync(root);
  if (!rootStat.isDirectory()) throw fail('ENOTDIR', root);
  checkOwnDir(root, rootStat.mode, rootStat.uid, warn);
  const rel = relative(root, dir);
  if (rel.startsWith('..') || rel.includes(`..${sep}`)) throw new TypeError(`${dir} is not inside ${root}`);
  let current = root;
  for (const part of rel ? rel.split(sep) : []) {
    current = join(current, part);
    let st;
    try {
      st = lstatSync(current);
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw e;
    }
    if (st?.isSymbolicLink()) {
      unlinkSync(current); // the link itself; its target is never touched
      warnOnce(warn, `link:${current}`, `ynab-mcp: ${current} was a symbolic link; it was removed and replaced by a private directory`);
      st = undefined;
    }
    if (!st) {
      try {
        mkdirSync(current, { mode: 0o700 });
      } catch (e) {
        if (errCode(e) !== 'EEXIST') throw e;
      }
      st = lstatSync(current);
      if (st.isSymbolicLink()) throw fail('ELOOP', current); // replaced while we looked: refuse
    }
    if (!st.isDirectory()) throw fail('ENOTDIR', current);
    checkOwnDir(current, st.mode, st.uid, warn);
  }
  return dir;
}

/**
 * Reads a regular file without following a link. Missing: undefined. A link: removed (never
 * followed), with a warning, and read as missing. Anything else that is not a regular file throws.
 */
export async function readNoFollow(path: string, warn: Warn): Promise<Buffer | undefined> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT') return undefined;
    if (isLink(code)) {
      await removeFile(path);
      noticeLink(warn, path, 'it was removed unread, and the file is written afresh');
      return undefined;
    }
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw fail(st.isDirectory() ? 'EISDIR' : 'ENOTFILE', path);
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

function tempPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Creates a new 0600 file that cannot be anything but ours: never through a link, never an existing file. */
export async function writeExclusive(path: string, data: Uint8Array | string, sync: boolean): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    if (!IS_WINDOWS) await fh.chmod(0o600); // the umask may have narrowed it further
    await fh.writeFile(data);
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Replaces `path` with `data` atomically: readers see the old or the new content, never a torn
 * one, and a link planted at `path` is replaced, not followed. `sync` flushes the data first
 * (for files whose loss matters more than a few milliseconds, such as secrets).
 */
export async function writeAtomic(path: string, data: Uint8Array | string, opts: { sync?: boolean } = {}): Promise<void> {
  const temp = tempPath(path);
  let done = false;
  try {
    await writeExclusive(temp, data, opts.sync ?? false);
    await renameWithRetry(temp, path);
    done = true;
  } finally {
    if (!done) await unlink(temp).catch(() => undefined);
  }
  if (opts.sync && !IS_WINDOWS) {
    // Make the rename itself durable. Best effort: some file systems refuse fsync on a directory.
    try {
      const dh = await open(dirname(path), 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
    } catch {
      /* durability of the directory entry only */
    }
  }
}

/**
 * Creates `path` with `data` only if nothing is there yet, atomically across processes (a
 * complete file appears under the name, or nothing does). Returns false when something already
 * was there (the caller reads it). A link there counts as something: the caller's read removes it.
 */
export async function createOnce(path: string, data: Uint8Array | string): Promise<boolean> {
  const temp = tempPath(path);
  await writeExclusive(temp, data, true);
  try {
    await link(temp, path);
    return true;
  } catch (e) {
    if (errCode(e) === 'EEXIST') return false;
    throw e;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Removes a file (or a link, never its target); a missing one is fine. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
}

/**
 * Before locking `lockPath` (a directory made by mkdir): a link or a file there is not a lock of
 * ours, and would make the lock wait forever or touch what it points at; remove it, with a warning.
 */
export async function clearLockPath(lockPath: string, warn: Warn): Promise<void> {
  let st;
  try {
    st = await lstat(lockPath);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return;
    throw e;
  }
  if (st.isDirectory()) return;
  await removeFile(lockPath);
  warnOnce(warn, `lock:${lockPath}`, `ynab-mcp: ${lockPath} was ${st.isSymbolicLink() ? 'a symbolic link' : 'not a lock'}; it was removed`);
}

/** On Windows a rename over a file that another process (or a virus scanner) holds open fails briefly. */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const code = errCode(err);
      if (!IS_WINDOWS || attempt >= 5 || (code !== 'EPERM' && code !== 'EACCES' && code !== 'EBUSY')) throw err;
      await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
    }
  }
}
