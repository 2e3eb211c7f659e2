/**
 * Every text this process writes to stderr (logs, warnings, banners, errors, stack traces, also
 * those of libraries) passes the one scrubber (api/client/scrub.ts) first, so that a base URL
 * configured with a token in it, or a credential some error quotes, never reaches a terminal or
 * a log file. Installed by the CLI before any command runs. stdout is left alone: in stdio mode
 * it is the MCP channel, whose answers are scrubbed where they are built.
 */
import { scrub } from './api/client/scrub.js';

export function scrubStderr(stream: NodeJS.WriteStream = process.stderr): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? scrub(chunk) : chunk, ...rest)) as typeof stream.write;
}
