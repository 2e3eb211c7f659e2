/**
 * No secret on a command line: every user of the machine can read a process's arguments (`ps`,
 * /proc/<pid>/cmdline), and shells keep them in their history. So the HTTP bearer token comes
 * from a file (`--http-token-file PATH`) or the environment (YNAB_MCP_HTTP_TOKEN), the old
 * `--http-token VALUE` is refused, and `--base-url` may not carry credentials (the API token
 * travels in the Authorization header, never in the URL; `ynab-mcp login` stores it).
 * Personal access tokens and OAuth client secrets are read from stdin or a hidden prompt (login).
 */
import { readFileSync, statSync } from 'node:fs';
import { scrub } from '../api/client/scrub.js';
import { UsageError } from '../shared/cli-flags.js';

/** Larger than any bearer token: a file this size was given by mistake. */
const MAX_TOKEN_FILE_BYTES = 4096;

export const HTTP_TOKEN_REFUSED =
  '--http-token is not accepted: a token on the command line can be read by every user of this machine (ps, /proc). Put it in a file only you can read and pass --http-token-file PATH, or set YNAB_MCP_HTTP_TOKEN.';

function readTokenFile(path: string, warn: (message: string) => void): string {
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`--http-token-file ${path} is not a file`);
    if (st.size > MAX_TOKEN_FILE_BYTES) throw new UsageError(`--http-token-file ${path} is ${st.size} bytes; it should hold only the token`);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      warn(`--http-token-file ${path} can be read by other users (mode ${(st.mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
    }
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new UsageError(`--http-token-file ${path} cannot be read: ${why}`);
  }
  const token = text.trim();
  if (!token) throw new UsageError(`--http-token-file ${path} is empty; it should hold the token clients send as "Authorization: Bearer <token>"`);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(`--http-token-file ${path} should hold one token: printable characters without spaces, on one line`);
  }
  return token;
}

/** The bearer token for HTTP serving: the file's, else YNAB_MCP_HTTP_TOKEN's, else none. */
export function httpToken(
  flags: { 'http-token'?: string; 'http-token-file'?: string },
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): string | undefined {
  if (flags['http-token'] !== undefined) throw new UsageError(HTTP_TOKEN_REFUSED);
  if (flags['http-token-file'] !== undefined) return readTokenFile(flags['http-token-file'], warn);
  return env.YNAB_MCP_HTTP_TOKEN || undefined;
}

/** A `--base-url` value, refused when it carries credentials (what the scrubber would remove). */
export function baseUrlFlag(value: string | undefined): string | undefined {
  if (value !== undefined && scrub(value) !== value) {
    throw new UsageError(
      `--base-url carries credentials (${scrub(value)}): a command line can be read by every user of this machine, and ynab-mcp sends the token in the Authorization header, never in the URL. Remove them; "ynab-mcp login" stores the token.`,
    );
  }
  return value;
}
