/**
 * `ynab-mcp call TOOL [ARGUMENTS] [options]`: one tool call made exactly as a host makes it, through
 * this process's own server (same options as `serve`) and a real MCP client, printing the
 * structured result as JSON on stdout. A tool error exits 1 with its message on stderr.
 */
import { readFileSync } from 'node:fs';
import { withheldWrite } from '../mcp/tools/withheld-writes.js';
import { offeredTools } from '../mcp/server.js';
import { connectInProcess } from '../transport/in-process.js';
import { parseCommand, UsageError } from '../shared/cli-flags.js';
import { ENVIRONMENT_HELP, openServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from './server-setup.js';

export const CALL_USAGE = `Usage: ynab-mcp call TOOL [ARGUMENTS] [options]

Makes one tool call as an MCP host would ("ynab-mcp tools" lists the tools) and prints the
structured result as JSON on stdout. ARGUMENTS is a JSON object, e.g. '{"limit": 5}', or "-" to
read it from stdin; without it the tool gets {}. Exits 1 when the tool reports an error (the
message goes to stderr), 2 when the command line is wrong.

With --sandbox the demo budgets are kept between calls (in the state directory's sandbox/), so a
preview's confirm_token can be redeemed by the next call, and an undo undoes a change made before.
Calls take turns (one waits for the other).

  --fresh                  with --sandbox: start the demo budgets again, as new
Options (as for serve):
${SERVER_FLAGS_HELP}
${ENVIRONMENT_HELP}`;

/** The tool error a host would show, as the reason for a non-zero exit. */
export class ToolCallError extends Error {}

function parseArguments(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  const text = raw === '-' ? readFileSync(0, 'utf8') : raw;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`ARGUMENTS must be a JSON object, e.g. '{"limit": 5}': ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`ARGUMENTS must be a JSON object, e.g. '{"limit": 5}', not ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** Edit distance, for "did you mean" (tool names are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The tool names closest to `name` (typos, a missing prefix), best first. */
function nearest(name: string, names: string[]): string[] {
  const scored = names.map((n) => ({ n, d: n.includes(name) ? 1 : distance(name, n) }));
  return scored
    .filter((s) => s.d <= Math.max(2, Math.floor(name.length / 4)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((s) => s.n);
}

export async function callCommand(argv: string[]): Promise<void> {
  const { values: flags, positionals } = parseCommand(argv, { ...SERVER_FLAGS, fresh: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (flags.help) {
    process.stdout.write(CALL_USAGE);
    return;
  }
  if (flags.fresh && !flags.sandbox) throw new UsageError('--fresh only applies with --sandbox (it starts the kept demo budgets again)');
  const [tool, rawArgs, ...extra] = positionals;
  if (!tool) throw new UsageError(`name the tool to call: ynab-mcp call TOOL [ARGUMENTS] ("ynab-mcp tools" lists them)`);
  if (extra.length)
    throw new UsageError(`unexpected ${extra.map((e) => JSON.stringify(e)).join(' ')}: give ARGUMENTS as one JSON object (quote it for the shell)`);
  const args = parseArguments(rawArgs);

  const opened = await openServer(flags, process.env, true, { fresh: flags.fresh === true });
  try {
    const connection = await connectInProcess(opened.state);
    try {
      // What the server answers by name: its list, and the tools a profile leaves off it (mcp/tools/toolsets.ts).
      const names = [...new Set([...(await connection.client.listTools()).tools.map((t) => t.name), ...offeredTools(opened.state).map((t) => t.name)])];
      // A write withheld by read-only mode is called anyway: the server answers why it is refused.
      if (!names.includes(tool) && !withheldWrite(opened.state, tool)) {
        const near = nearest(tool, names);
        throw new UsageError(
          `no tool ${JSON.stringify(tool)} with these options${near.length ? `; did you mean ${near.join(', ')}?` : ''} ("ynab-mcp tools" lists them)`,
        );
      }
      const result = await connection.client.callTool({ name: tool, arguments: args });
      const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === 'text')?.text ?? '';
      if (result.isError) throw new ToolCallError(`${tool}: ${text}`);
      process.stdout.write(`${JSON.stringify(result.structuredContent ?? text, null, 2)}\n`);
    } finally {
      await connection.close();
    }
  } finally {
    await opened.close();
  }
}
