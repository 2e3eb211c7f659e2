/**
 * Command-line parsing shared by the commands: node's parseArgs plus checked numbers, with
 * errors that say which flag was wrong and what it expects.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Like parseFlags, and also returns the positional arguments (for commands that take some). */
export function parseCommand<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function intFlag(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number between ${min} and ${max}, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A comma-separated list flag (or variable): its non-empty entries, trimmed. */
export function listFlag(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A failure to listen, as a message that says what to change (the port, the host). */
export function listenError(e: unknown, host: string, port: number): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${host}:${port}: the port is already in use (another ynab-mcp?); choose another --port, or --port 0 for a free one`);
  if (code === 'EACCES') return new Error(`cannot listen on ${host}:${port}: permission denied; choose a --port above 1023, or --port 0 for a free one`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new Error(`cannot listen on ${host}:${port}: --host ${host} is not an address of this machine`);
  return e as Error;
}

/**
 * A warning as one stderr line, "ynab-mcp: warning: …". Messages from the storage and quota code
 * already carry "ynab-mcp: " (they are also logged where no command wraps them): those keep theirs,
 * so no line says "ynab-mcp: warning: ynab-mcp: …".
 */
export function warningLine(message: string): string {
  return message.startsWith('ynab-mcp:') ? message : `ynab-mcp: warning: ${message}`;
}

/**
 * How the user runs this command again, for the lines that tell them what to type: a host
 * configured with `npx -y ynab-mcp` puts no `ynab-mcp` on the PATH. npx marks what it runs with
 * npm_lifecycle_event=npx and the bin it ran, shell-quoted, in npm_lifecycle_script (a process
 * started under another npx command, such as `npx vitest`, inherits that one's script).
 */
export const commandName = (env: Record<string, string | undefined>): string =>
  env.npm_lifecycle_event === 'npx' && /^'?ynab-mcp'?(\s|$)/.test(env.npm_lifecycle_script ?? '') ? 'npx -y ynab-mcp' : 'ynab-mcp';
