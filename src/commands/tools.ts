/**
 * `ynab-mcp tools [--json] [options]`: the tools a host gets from `serve` with the same options,
 * each with the size of its definition as tools/list sends it, and the total: what a profile
 * (--toolsets, --read-only) costs in a model's context before anything is asked.
 * Listing asks YNAB nothing and reads no credentials.
 */
import { connectInProcess } from '../transport/in-process.js';
import { parseFlags } from '../shared/cli-flags.js';
import { ENVIRONMENT_HELP, openServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from './server-setup.js';

export const TOOLS_USAGE = `Usage: ynab-mcp tools [--json] [options]

Lists the tools "ynab-mcp serve" offers with the same options, with the size of each tool's
definition in tools/list (bytes of its JSON) and the total, to see what a set of tools costs.

  --json                   one JSON object on stdout
Options (as for serve):
${SERVER_FLAGS_HELP}
${ENVIRONMENT_HELP}`;

export interface ToolSize {
  name: string;
  title: string | undefined;
  access: 'read' | 'write';
  bytes: number;
}

export interface ToolsReport {
  count: number;
  /** Sum of the definitions' sizes. */
  total_bytes: number;
  /** The server's instructions, also sent to the model at the start. */
  instructions_bytes: number;
  tools: ToolSize[];
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const grouped = (n: number) => n.toLocaleString('en-US');

export function formatTools(r: ToolsReport): string {
  const width = Math.max(4, ...r.tools.map((t) => t.name.length));
  const lines = [`${'TOOL'.padEnd(width)}  ${'BYTES'.padStart(7)}  ACCESS`];
  for (const t of r.tools) lines.push(`${t.name.padEnd(width)}  ${grouped(t.bytes).padStart(7)}  ${t.access}`);
  lines.push(
    `${r.count} tool${r.count === 1 ? '' : 's'}: ${grouped(r.total_bytes)} bytes (about ${grouped(Math.round(r.total_bytes / 4))} tokens at 4 bytes a token); ` +
      `server instructions: ${grouped(r.instructions_bytes)} bytes`,
  );
  return `${lines.join('\n')}\n`;
}

export async function toolsCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, { ...SERVER_FLAGS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (flags.help) {
    process.stdout.write(TOOLS_USAGE);
    return;
  }
  const opened = await openServer(flags);
  try {
    const connection = await connectInProcess(opened.state);
    try {
      const { tools } = await connection.client.listTools();
      const sizes: ToolSize[] = tools.map((t) => ({ name: t.name, title: t.title, access: t.annotations?.readOnlyHint ? 'read' : 'write', bytes: bytes(t) }));
      const report: ToolsReport = {
        count: sizes.length,
        total_bytes: sizes.reduce((n, t) => n + t.bytes, 0),
        instructions_bytes: Buffer.byteLength(connection.client.getInstructions() ?? '', 'utf8'),
        tools: sizes,
      };
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatTools(report));
    } finally {
      await connection.close();
    }
  } finally {
    await opened.close();
  }
}
