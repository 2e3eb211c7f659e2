/**
 * Where a bank statement's text comes from: `content` (the file's text, as the assistant has it)
 * or `path` (a file on the user's computer). A path is read only where the server runs for one
 * local user (stdio, or HTTP bound to loopback: `localFiles`): in hosted mode, or beyond loopback,
 * a path would read the server machine's files on someone else's behalf, so it is refused there.
 * The file is checked before it is read whole: a regular file, at most 2 MB (the parser's limit).
 */
import { open, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ArgumentError } from '../../shared/argument-error.js';

/** The most a statement file may hold (src/statements' STATEMENT_LIMITS.bytes). */
export const STATEMENT_MAX_BYTES = 2_097_152;

export interface SourceArgs {
  content?: string | undefined;
  path?: string | undefined;
}

/** A path as the user typed it: absolute, or starting at their home folder (~/...). */
function fullPath(path: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  if (!isAbsolute(path))
    throw new ArgumentError(
      `path ${JSON.stringify(path)} is relative; give the file's full path (e.g. /Users/me/Downloads/statement.csv or ~/Downloads/statement.csv)`,
    );
  return path;
}

const tooBig = (what: string, bytes: number) =>
  new ArgumentError(
    `${what} is ${bytes.toLocaleString('en-US')} bytes; a statement file may be at most 2 MB (${STATEMENT_MAX_BYTES.toLocaleString('en-US')} bytes): split it by date`,
  );

/**
 * Reads a statement file by path, refusing what is not a regular file or is over 2 MB, before
 * reading it whole. Its bytes are given as they are: the reader decodes them in the charset the
 * file declares (an OFX header's CHARSET, an XML declaration; src/statements/decode.ts).
 */
async function readStatementFile(path: string): Promise<Uint8Array> {
  const full = fullPath(path);
  const info = await stat(full).catch((e: NodeJS.ErrnoException) => {
    throw new ArgumentError(
      e.code === 'ENOENT' ? `path ${JSON.stringify(path)}: no such file` : `path ${JSON.stringify(path)} cannot be read (${e.code ?? e.message})`,
    );
  });
  if (!info.isFile())
    throw new ArgumentError(`path ${JSON.stringify(path)} is ${info.isDirectory() ? 'a folder' : 'not a regular file'}; give a statement file`);
  if (info.size > STATEMENT_MAX_BYTES) throw tooBig(`path ${JSON.stringify(path)}`, info.size);
  // Read at most one byte past the limit: a file that grew since stat is still refused, never read whole.
  const handle = await open(full, 'r');
  try {
    const buf = Buffer.alloc(STATEMENT_MAX_BYTES + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
      if (!bytesRead) break;
      got += bytesRead;
      if (got > STATEMENT_MAX_BYTES) throw tooBig(`path ${JSON.stringify(path)}`, got);
    }
    return buf.subarray(0, got);
  } finally {
    await handle.close();
  }
}

/**
 * The statement, from `content` (its text) or `path` (its bytes), exactly one; undefined when
 * neither was given and `optional`. `localFiles`: the server runs for one local user (else `path`
 * is refused).
 */
export async function statementText(a: SourceArgs, localFiles: boolean, optional = false): Promise<string | Uint8Array | undefined> {
  if (a.content !== undefined && a.path !== undefined) throw new ArgumentError('give the statement as content (its text) or as path (a file), not both');
  if (a.path !== undefined) {
    if (!localFiles)
      throw new ArgumentError(
        "path is not taken by this server: it is hosted (or serves HTTP beyond loopback), so it cannot read files on your computer. Give the file's text as content instead",
      );
    return readStatementFile(a.path);
  }
  if (a.content !== undefined) {
    const bytes = Buffer.byteLength(a.content, 'utf8');
    if (bytes > STATEMENT_MAX_BYTES) throw tooBig('content', bytes);
    if (!a.content.trim()) throw new ArgumentError("content is empty; give the statement file's text");
    return a.content;
  }
  if (optional) return undefined;
  throw new ArgumentError("a statement is needed: give content (the file's text) or path (the file, where this server runs on your computer)");
}
