/**
 * `ynab-mcp serve` (the default command): the MCP server over stdio, or Streamable HTTP with
 * `--transport http`. `--sandbox` serves the local demo budgets instead of a real account.
 * Starting is cheap and side-effect free: credentials are looked up at the first tool call.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConnection } from '../auth/connection.js';
import { ConfigError, mcpConfig } from '../mcp/config.js';
import { serveHttp } from '../mcp/http.js';
import { serveStdioServer } from '../mcp/stdio.js';
import { ServerState, type Connection } from '../mcp/state.js';
import { configDir, stateDir } from '../paths.js';
import { startSandbox, type RunningSandbox } from '../sandbox/app.js';
import { intFlag, parseFlags, UsageError } from './args.js';
import { baseUrlFlag, httpToken } from './secret-flags.js';

export const SERVE_USAGE = `Usage: ynab-mcp serve [options]

Serves YNAB to MCP clients over stdio (default) or Streamable HTTP.

Options:
  --transport stdio|http   how to serve (default stdio)
  --port N / --host H      HTTP: where to listen (default 127.0.0.1, port 8787; 0 = a free port)
  --http-token-file PATH   HTTP: require "Authorization: Bearer <the token in PATH>" (or set
                           YNAB_MCP_HTTP_TOKEN); needed off loopback. Never on the command line.
  --sandbox                serve the local demo budgets (no account needed)
  --seed S                 with --sandbox: demo data seed
  --budget ID              default budget for tools (or YNAB_BUDGET_ID; default "last-used")
  --toolsets LIST          user,budgets,accounts,categories,months,payees,money_movements,transactions,scheduled,
                           insights,changes, or the profile core (default all; list_budgets always)
  --read-only              no write tools, and the client refuses writes (or YNAB_READ_ONLY=1)
  --writes MODE            direct (default): deletes, bulk and split edits, undo and count mismatches
                           answer with a preview and a confirm_token first; confirm: every write does;
                           off: read-only (or YNAB_MCP_WRITES)
  --elicitation on|off     ask the user through the client's confirmation dialog where it has one
                           (default on; or YNAB_MCP_ELICITATION); the confirm_token path always works
  --base-url URL           the API (or YNAB_BASE_URL; default https://api.ynab.com/v1)
  --max-staleness S        answer from the local copy when it is at most S seconds old (default 60; 0 = always check)
  --profile NAME           which stored sign-in to use (default "default")
  --verbose                log each HTTP request on stderr

Hosted mode (many users, OAuth, state in Redis; see the README's "Hosted mode"):
  --hosted                 with --transport http: serve many users who sign in with YNAB
  --public-url URL         the https origin clients reach (http on loopback for tests only)
  --redis URL              redis://host:port[/db] (or YNAB_MCP_REDIS_URL; password in
                           YNAB_MCP_REDIS_PASSWORD[_FILE], never on the command line)
  --app-url URL            YNAB's OAuth origin (default https://app.ynab.com)
  Environment: YNAB_OAUTH_CLIENT_ID, YNAB_OAUTH_CLIENT_SECRET, YNAB_MCP_DATA_KEY (or each …_FILE)
`;

export async function serveCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    transport: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    // Only to refuse it with a message that says what to use instead.
    'http-token': { type: 'string' },
    'http-token-file': { type: 'string' },
    sandbox: { type: 'boolean' },
    seed: { type: 'string' },
    budget: { type: 'string' },
    toolsets: { type: 'string' },
    'read-only': { type: 'boolean' },
    writes: { type: 'string' },
    elicitation: { type: 'string' },
    'base-url': { type: 'string' },
    'max-staleness': { type: 'string' },
    profile: { type: 'string' },
    verbose: { type: 'boolean' },
    hosted: { type: 'boolean' },
    'public-url': { type: 'string' },
    redis: { type: 'string' },
    'app-url': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags.help) {
    process.stderr.write(SERVE_USAGE);
    return;
  }
  const transport = flags.transport ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http') throw new UsageError(`--transport must be "stdio" or "http", got ${JSON.stringify(transport)}`);
  let config;
  try {
    config = mcpConfig({ budget: flags.budget, toolsets: flags.toolsets, readOnly: flags['read-only'], writes: flags.writes, elicitation: flags.elicitation });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(/toolset/.test(e.message) ? `--toolsets: ${e.message}` : e.message);
    throw e;
  }
  const maxStaleness = intFlag(flags['max-staleness'], 'max-staleness', 0, 86_400) ?? 60;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const baseUrl = baseUrlFlag(flags['base-url']) ?? process.env.YNAB_BASE_URL;
  if (flags.hosted) {
    // Loaded only here: the single-user server never loads Redis or the authorization server.
    const { hostedCommand } = await import('../hosted/command.js');
    return hostedCommand(flags, { config, maxStalenessMs: maxStaleness * 1000, baseUrl, log });
  }
  for (const f of ['public-url', 'redis', 'app-url'] as const) if (flags[f] !== undefined) throw new UsageError(`--${f} belongs to hosted mode: add --hosted (with --transport http)`);
  // Before anything starts: a refused or unreadable token ends here with a usage error.
  const bearer = httpToken(flags, process.env, (m) => log(`ynab-mcp: warning: ${m}`));

  let sandbox: RunningSandbox | undefined;
  let state: ServerState;
  if (flags.sandbox) {
    // The demo is local and throwaway: its own state directory, nothing saved.
    sandbox = await startSandbox({ seed: flags.seed ?? 'demo', log, rateLimit: 1_000_000 });
    const running = sandbox;
    const connection: Connection = { tokens: { token: async () => running.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: running.baseUrl };
    state = new ServerState(config, async () => connection, { stateDir: mkdtempSync(join(tmpdir(), 'ynab-mcp-sandbox-')), persist: false, maxStalenessMs: maxStaleness * 1000 });
    log(`ynab-mcp: serving the sandbox's demo budgets (${sandbox.baseUrl})`);
  } else {
    const state_ = stateDir();
    state = new ServerState(config, () => resolveConnection({ configDir: configDir(), stateDir: state_, profile: flags.profile, baseUrl, warn: log }), {
      stateDir: state_,
      maxStalenessMs: maxStaleness * 1000,
      log,
    });
  }

  let stop: () => Promise<void>;
  if (transport === 'http') {
    const http = await serveHttp(state, {
      host: flags.host,
      port: intFlag(flags.port, 'port', 0, 65535) ?? 8787,
      token: bearer,
      log: flags.verbose ? log : undefined,
    });
    log(`ynab-mcp: MCP endpoint at ${http.url}`);
    stop = () => http.close();
  } else {
    const stdio = serveStdioServer(state);
    stop = () => stdio.close();
    process.stdin.on('end', () => void shutdown('stdin closed'));
  }

  let stopping = false;
  async function shutdown(why: string) {
    if (stopping) return;
    stopping = true;
    if (flags.verbose) log(`ynab-mcp: ${why}, stopping`);
    try {
      await stop();
      await state.close();
      await sandbox?.close();
    } finally {
      process.exit(0);
    }
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
