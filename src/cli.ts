#!/usr/bin/env node
/**
 * ynab-mcp command line. stdout belongs to the MCP channel (serve), to one machine-readable
 * line (sandbox) or to what was asked for (--help, --version, tools, call); everything else for
 * people (notices, warnings, errors) goes to stderr.
 */
import { createRequire } from 'node:module';
import { UsageError } from './shared/cli-flags.js';
import { exitOnUncaught, scrubStderr } from './scrubbed-stderr.js';

const USAGE = `Usage: ynab-mcp <command> [options]

Commands:
  serve      serve YNAB to MCP clients (the default): stdio, or --transport http
  tools      list the tools serve offers with the same options, and their sizes (--json)
  call       make one tool call as a host would and print its result: call TOOL '{"arg": 1}'
  sandbox    start the local YNAB v1 sandbox service with demo budgets
  login      store a personal access token, or sign in with OAuth (--oauth)
  logout     remove the stored sign-in and its saved replicas
  status     token source, scope, expiry, quota left, keychain and replicas (--json)

Run "ynab-mcp <command> --help" for a command's options; "ynab-mcp --version" for the version.
`;

// Each command is loaded when run: starting the server loads nothing the others need.
const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  tools: async () => (await import('./commands/tools.js')).toolsCommand,
  call: async () => (await import('./commands/call.js')).callCommand,
  sandbox: async () => (await import('./commands/sandbox.js')).sandboxCommand,
  login: async () => (await import('./commands/login.js')).loginCommand,
  logout: async () => (await import('./commands/logout.js')).logoutCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
};

async function main(argv: string[]): Promise<void> {
  // `serve` is the default command: `ynab-mcp` and `ynab-mcp --sandbox` serve over stdio.
  const [first, ...others] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
    process.stdout.write(`ynab-mcp ${version}\n`);
    return;
  }
  const [name, rest] = first === undefined || (first.startsWith('--') && first !== '--help') ? ['serve', argv] : [first, others];
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) throw new UsageError(`unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
  await (
    await load()
  )(rest);
}

scrubStderr();
exitOnUncaught();
main(process.argv.slice(2)).catch((e: unknown) => {
  const usage = e instanceof UsageError;
  const message = (e as Error).message;
  // One prefix: a message from below may carry it already.
  process.stderr.write(`${message.startsWith('ynab-mcp:') ? message : `ynab-mcp: ${message}`}\n`);
  process.exit(usage ? 2 : 1);
});
