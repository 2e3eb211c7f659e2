#!/usr/bin/env node
/**
 * ynab-mcp command line. stdout belongs to the MCP channel (serve) or to one machine-readable
 * line (sandbox); everything for people goes to stderr.
 */
import { UsageError } from './commands/args.js';
import { loginCommand, LOGIN_USAGE } from './commands/login.js';
import { logoutCommand, LOGOUT_USAGE } from './commands/logout.js';
import { sandboxCommand, SANDBOX_USAGE } from './commands/sandbox.js';
import { serveCommand, SERVE_USAGE } from './commands/serve.js';
import { statusCommand, STATUS_USAGE } from './commands/status.js';
import { scrubStderr } from './scrubbed-stderr.js';

const USAGE = `Usage: ynab-mcp <command> [options]

Commands:
  serve      serve YNAB to MCP clients (the default): stdio, or --transport http
  sandbox    start the local YNAB v1 sandbox service with demo budgets
  login      store a personal access token, or sign in with OAuth (--oauth)
  logout     remove the stored sign-in and its saved replicas
  status     token source, scope, expiry, quota left, keychain and replicas (--json)

Run "ynab-mcp <command> --help" for a command's options.
`;

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<void>; usage: string }> = {
  serve: { run: serveCommand, usage: SERVE_USAGE },
  sandbox: { run: sandboxCommand, usage: SANDBOX_USAGE },
  login: { run: loginCommand, usage: LOGIN_USAGE },
  logout: { run: logoutCommand, usage: LOGOUT_USAGE },
  status: { run: statusCommand, usage: STATUS_USAGE },
};

async function main(argv: string[]): Promise<void> {
  // `serve` is the default command: `ynab-mcp` and `ynab-mcp --sandbox` serve over stdio.
  const [first, ...others] = argv;
  const [name, rest] = first === undefined || first.startsWith('--') && first !== '--help' ? ['serve', argv] : [first, others];
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(USAGE);
    return;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
  await command.run(rest);
}

scrubStderr();
main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  process.stderr.write(`ynab-mcp: ${(e as Error).message}\n`);
  process.exit(usage ? 2 : 1);
});
