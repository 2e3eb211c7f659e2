#!/usr/bin/env node
/**
 * ynab-mcp command line. stdout belongs to the MCP channel (serve) or to one machine-readable
 * line (sandbox); everything for people goes to stderr.
 */
import { UsageError } from './commands/args.js';
import { sandboxCommand, SANDBOX_USAGE } from './commands/sandbox.js';

const USAGE = `Usage: ynab-mcp <command> [options]

Commands:
  sandbox    start the local YNAB v1 sandbox service with demo budgets

Run "ynab-mcp <command> --help" for a command's options.
`;

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; usage: string }> = {
  sandbox: { run: sandboxCommand, usage: SANDBOX_USAGE },
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(USAGE);
    return;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
  await command.run(rest);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  process.stderr.write(`ynab-mcp: ${(e as Error).message}\n`);
  process.exit(usage ? 2 : 1);
});
