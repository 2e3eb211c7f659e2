/**
 * Every text this process writes to stderr (logs, warnings, banners, errors, stack traces, also
 * those of libraries) passes the one scrubber (api/client/scrub.ts) first, so that a base URL
 * configured with a token in it, or a credential some error quotes, never reaches a terminal or
 * a log file. Installed by the CLI before any command runs. stdout is left alone: in stdio mode
 * it is the MCP channel, whose answers are scrubbed where they are built.
 *
 * Node prints an uncaught exception or unhandled rejection itself, straight to file descriptor 2,
 * past `process.stderr.write`: `exitOnUncaught` prints them through the scrubber instead (and
 * exits 1, as Node would).
 */
import { scrub } from './api/client/scrub.js';

/** The tokens this process was given through its environment: removed wherever they appear. */
function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return [env.YNAB_ACCESS_TOKEN, env.YNAB_MCP_HTTP_TOKEN, env.YNAB_OAUTH_CLIENT_SECRET, env.YNAB_MCP_DATA_KEY]
    .filter((v): v is string => !!v && v.trim().length >= 8)
    .map((v) => v.trim());
}

export function scrubStderr(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): void {
  const secrets = environmentSecrets(env);
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const clean = (chunk: unknown) =>
    typeof chunk === 'string' ? scrub(chunk, secrets) : chunk instanceof Uint8Array ? scrub(Buffer.from(chunk).toString('utf8'), secrets) : chunk;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(clean(chunk), ...rest)) as typeof stream.write;
}

/** Uncaught errors are printed through the (scrubbed) stderr, and end the process with status 1. */
export function exitOnUncaught(): void {
  const fail = (kind: string) => (e: unknown) => {
    const text = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    process.stderr.write(`ynab-mcp: ${kind}: ${text}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', fail('unexpected error'));
  process.on('unhandledRejection', fail('unhandled rejection'));
}
