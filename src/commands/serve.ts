/**
 * `ynab-mcp serve` (the default command): the MCP server over stdio, or Streamable HTTP with
 * `--transport http`. `--sandbox` serves the local demo budgets instead of a real account.
 * Starting is cheap and side-effect free: credentials are looked up at the first tool call.
 */
import { join } from 'node:path';
import type { HttpServer } from '../transport/http.js';
import { isLoopbackHost } from '../transport/http-guards.js';
import { ConfigError } from '../api/client/errors.js';
import { commandName, intFlag, listenError, listFlag, parseFlags, UsageError, warningLine } from '../shared/cli-flags.js';
import { HTTP_TOKEN_REFUSED, httpToken } from './secret-flags.js';
import { watchAfterStart } from './serve-watch.js';
import { capYoungSpace } from './young-space.js';
import { rehearsalNotice, type RehearsalCopy } from '../mcp/state/config.js';
import { ENVIRONMENT_HELP, openServer, SERVER_FLAGS, SERVER_FLAGS_HELP, serverOptions, type OpenedServer } from './server-setup.js';

export const SERVE_USAGE = `Usage: ynab-mcp serve [options]

Serves YNAB to MCP clients over stdio (default) or Streamable HTTP.

Options:
${SERVER_FLAGS_HELP}  --rehearse               serve a private copy of the budget (--budget), read in one request, kept
                           and reopened; writes change only the copy (docs/rehearsal.md)
  --rehearse-new           discard the kept copy and take a new one
  --rehearse-discard       discard the kept copy and exit

HTTP (with --transport http):
  --transport stdio|http   how to serve (default stdio)
  --port N / --host H      where to listen (default 127.0.0.1, port 8787; 0 = a free port; 0.0.0.0 = every interface)
  --http-token-file PATH   require "Authorization: Bearer <the token in PATH>" (or set
                           YNAB_MCP_HTTP_TOKEN); needed off loopback. Never on the command line.
  --allowed-hosts LIST     more Host names to answer to, comma-separated, each NAME or NAME:PORT (a LAN
                           name, a reverse proxy's public name); every other Host is refused (DNS rebinding)
  --allowed-origins LIST   more browser Origins to answer to, comma-separated (e.g. https://app.example.com)

Hosted mode (many users, OAuth, state in Redis; see the README's "Hosted mode"):
  --hosted                 with --transport http: serve many users who sign in with YNAB
  --public-url URL         the https origin clients reach (http on loopback for tests only)
  --redis URL              redis://host:port[/db] (or YNAB_MCP_REDIS_URL); its password in YNAB_MCP_REDIS_PASSWORD
                           or YNAB_MCP_REDIS_PASSWORD_FILE, never on the command line. A Redis Cluster:
                           redis+cluster://host:port,host:port, or --redis once per seed
  --app-url URL            YNAB's OAuth origin (default https://app.ynab.com)
  --drain-seconds N        on SIGTERM, how long requests in flight may take to finish (default 20); /readyz
                           answers 503 and new requests get 503 with Retry-After meanwhile
  --replica-cache-mb N     memory for all users' budget copies together (default 512); past it the least
                           recently used are read from Redis again when next asked for
                           (YNAB_MCP_MAX_USERS_HELD: users whose state an instance holds, default 200;
                           watching users with webhooks does not count against it)
                           (YNAB_MCP_WARM_USERS: recently active users whose copies a starting instance
                           reads before it is ready, default 200, 0: none; YNAB_MCP_WARM_USERS_MS:
                           the time it may take, default 1000; YNAB_MCP_READY_WITHIN_MS: the whole
                           warm-up's end, in ms from the process's start, default 2500)
  --concurrent-requests N  MCP requests an instance works on at once (default 8; 0: no limit); the
                           rest wait in arrival order, so a crowd's calls each wait behind a few
                           (YNAB_MCP_ADMISSION_HOLD_MS: how long a call may compute on its slot at a
                           stretch before it goes back in line, default 1000)
  --requests-in-loop N     of those, how many may be on the instance's event loop at once, computing
                           or waiting on Redis (default 4; 0: no limit); one waiting on YNAB leaves
                           its place meanwhile, and calls that write to YNAB take the next place first
  --allowed-origins LIST   browser Origins allowed on /mcp beside https://claude.ai, https://claude.com and
                           https://chatgpt.com (each scheme://host[:port]); any other Origin gets 403
  --registration-limit N   client registrations one address may make per window (default 20); then 429
  --registration-window S  that window, in seconds (default 3600)
  --allowed-users LIST     the YNAB user ids that may sign in (or YNAB_MCP_ALLOWED_USERS); default anyone
  --log-format text|json   one line per request on stderr, as text (default) or JSON
  --metrics-token-file PATH  serve Prometheus metrics at /metrics to "Authorization: Bearer <token in PATH>"
  --metrics-port N         serve /metrics without a token on 127.0.0.1:N only
  Environment: YNAB_OAUTH_CLIENT_ID, YNAB_OAUTH_CLIENT_SECRET and YNAB_MCP_DATA_KEY, or files holding them
  named by YNAB_OAUTH_CLIENT_ID_FILE, YNAB_OAUTH_CLIENT_SECRET_FILE and YNAB_MCP_DATA_KEY_FILE

${ENVIRONMENT_HELP}  YNAB_MCP_HTTP_TOKEN      the HTTP bearer token, instead of --http-token-file
  YNAB_MCP_ALLOWED_HOSTS   as --allowed-hosts      YNAB_MCP_ALLOWED_ORIGINS  as --allowed-origins
`;

/** Over stdio with stdin a terminal: a person typed `ynab-mcp` and sees why nothing happens (a host's stdin is a pipe). */
const WAITING_ON_A_TERMINAL =
  'ynab-mcp: waiting for an MCP host on stdin (hosts start this server themselves; Ctrl-C stops it); `ynab-mcp --help` lists the commands';

/**
 * At a terminal with no token known: how to get one, at start rather than at the first tool call
 * (a host's user sees that call's error in the conversation; a person at a terminal sees this).
 */
export const noTokenHint = (env: NodeJS.ProcessEnv): string =>
  `ynab-mcp: no YNAB token yet (YNAB_ACCESS_TOKEN is not set, and \`ynab-mcp login\` recorded no sign-in): run \`${commandName(env)} login\`, set YNAB_ACCESS_TOKEN, or add --sandbox to serve the demo budgets`;

/** Flags that only mean something when serving over HTTP. */
const HTTP_ONLY = ['port', 'host', 'http-token-file', 'allowed-hosts', 'allowed-origins'] as const;

/** Flags that mean something only with --hosted: refused without it, by name. */
const HOSTED_ONLY_FLAGS = [
  'public-url',
  'redis',
  'app-url',
  'drain-seconds',
  'replica-cache-mb',
  'concurrent-requests',
  'requests-in-loop',
  'registration-limit',
  'registration-window',
  'allowed-users',
  'metrics-token-file',
  'metrics-port',
  'log-format',
] as const;

/** serve's flags: the server's, and those of HTTP, hosted mode and rehearsals. */
const SERVE_FLAGS = {
  ...SERVER_FLAGS,
  transport: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  // Only to refuse it with a message that says what to use instead.
  'http-token': { type: 'string' },
  'http-token-file': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  hosted: { type: 'boolean' },
  'public-url': { type: 'string' },
  redis: { type: 'string', multiple: true },
  'app-url': { type: 'string' },
  'drain-seconds': { type: 'string' },
  'replica-cache-mb': { type: 'string' },
  'concurrent-requests': { type: 'string' },
  'requests-in-loop': { type: 'string' },
  'registration-limit': { type: 'string' },
  'registration-window': { type: 'string' },
  'allowed-users': { type: 'string' },
  'log-format': { type: 'string' },
  'metrics-token-file': { type: 'string' },
  'metrics-port': { type: 'string' },
  rehearse: { type: 'boolean' },
  'rehearse-new': { type: 'boolean' },
  'rehearse-discard': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function serveCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, SERVE_FLAGS);
  if (flags.help) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (flags['rehearse-discard']) {
    log((await import('./rehearse.js')).discardRehearsal(process.env));
    return;
  }
  const transport = transportOf(flags);
  const port = intFlag(flags.port, 'port', 0, 65535) ?? 8787;
  if (flags.hosted && (flags.rehearse || flags['rehearse-new'])) throw new UsageError("--rehearse serves one user's copy: it cannot be combined with --hosted");
  if (flags.hosted) {
    // Loaded only here: the single-user server never loads Redis or the authorization server.
    const { hostedCommand } = await import('../hosted/command.js');
    return hostedCommand(flags, { ...serverOptions(flags), log });
  }
  for (const f of HOSTED_ONLY_FLAGS) if (flags[f] !== undefined) throw new UsageError(`--${f} belongs to hosted mode: add --hosted (with --transport http)`);
  // One user's server: its young generation kept small (young-space.ts: 32 MB less at 100,000 transactions).
  capYoungSpace();
  // Before anything starts: a refused or unreadable token ends here with a usage error.
  const token = transport === 'http' ? httpToken(flags, process.env, (m) => log(warningLine(m))) : undefined;

  // A tool may read the user's files by path only when this server is theirs alone: over stdio, or
  // HTTP bound to loopback (beyond it, a path would read this machine's files for someone else).
  const local = transport === 'stdio' || isLoopbackHost(flags.host ?? '127.0.0.1');
  const opened: OpenedServer =
    flags.rehearse || flags['rehearse-new']
      ? await (await import('./rehearse.js')).openRehearsal(flags, process.env, local, log)
      : await openServer(flags, process.env, local);
  const { state } = opened;
  for (const line of firstLines(opened)) log(line);

  let stop: () => Promise<void>;
  if (transport === 'http') {
    const { serveHttp } = await import('../transport/http.js');
    const host = flags.host ?? '127.0.0.1';
    let http: HttpServer;
    try {
      // Signs 2025-era session ids; kept in the state directory, so a restart keeps connected clients' views.
      const sessionKey = opened.stateDir ? await sessionKeyOf(opened.stateDir, log) : undefined;
      http = await serveHttp(state, {
        sessionKey,
        host,
        port,
        token,
        allowedHosts: listFlag(flags['allowed-hosts'] ?? process.env.YNAB_MCP_ALLOWED_HOSTS),
        allowedOrigins: listFlag(flags['allowed-origins'] ?? process.env.YNAB_MCP_ALLOWED_ORIGINS),
        log: flags.verbose ? log : undefined,
      });
    } catch (e) {
      await opened.close();
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw listenError(e, host, port);
    }
    const [url, ...others] = http.urls;
    log(`ynab-mcp: MCP endpoint at ${url}${others.length ? ` (also ${others.join(', ')})` : ''}`);
    log(connectHint(url!, token === undefined ? undefined : flags['http-token-file'] ? `$(cat ${flags['http-token-file']})` : '$YNAB_MCP_HTTP_TOKEN'));
    stop = () => http.close();
  } else {
    const { serveStdioServer } = await import('../transport/stdio.js');
    const stdio = serveStdioServer(state);
    stop = () => stdio.close();
    if (process.stdin.isTTY) log(WAITING_ON_A_TERMINAL);
    process.stdin.on('end', () => void shutdown('stdin closed'));
  }

  // Budgets with webhook subscriptions from before a restart are watched without waiting for a call.
  const stopWaiting = watchAfterStart(state, opened.stateDir);
  let stopping = false;
  async function shutdown(why: string) {
    if (stopping) return;
    stopping = true;
    stopWaiting();
    if (flags.verbose) log(`ynab-mcp: ${why}, stopping`);
    try {
      await stop();
      await opened.close();
    } finally {
      process.exit(0);
    }
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/**
 * The line that says what is served, or how to get a token at a terminal without one. The
 * sandbox's own URL is not printed: its token is made for this run and kept off the output
 * (docs/sandbox.md), and without it the URL is of no use; `ynab-mcp sandbox` serves the v1 API with its tokens.
 */
function firstLines(opened: OpenedServer & { copy?: RehearsalCopy; taken?: boolean }): string[] {
  if (opened.copy) return [`ynab-mcp: serving a ${opened.taken ? 'new' : 'kept'} ${rehearsalNotice(opened.copy)} (--rehearse-new takes a new one)`];
  if (opened.sandbox && opened.from) return [`ynab-mcp: serving the budget exported in ${opened.from} from a local sandbox (nothing is sent to YNAB)`];
  if (opened.sandbox) return [`ynab-mcp: serving the sandbox's demo budgets (no account needed; nothing is sent to YNAB)`];
  return opened.noTokenYet && process.stdin.isTTY ? [noTokenHint(process.env)] : [];
}

/** --transport, checked with the flags that only HTTP takes. */
function transportOf(flags: Record<string, unknown>): 'stdio' | 'http' {
  const transport = flags.transport ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http') throw new UsageError(`--transport must be "stdio" or "http", got ${JSON.stringify(transport)}`);
  if (flags['http-token'] !== undefined) throw new UsageError(HTTP_TOKEN_REFUSED);
  if (transport === 'stdio') {
    const stray = HTTP_ONLY.find((f) => flags[f] !== undefined);
    if (stray) throw new UsageError(`--${stray} only applies to HTTP: add --transport http (without it the server speaks MCP over stdio)`);
  }
  return transport;
}

/** One line on how to connect a client to the HTTP endpoint; `token` says where the token is, never what. */
export function connectHint(url: string, token: string | undefined): string {
  const header = token ? ` --header "Authorization: Bearer ${token}"` : '';
  return `ynab-mcp: connect with Claude Code: claude mcp add --transport http ynab ${url}${header}; or the MCP Inspector: npx @modelcontextprotocol/inspector (Streamable HTTP, ${url})`;
}

/**
 * The key that signs 2025-era HTTP session ids, from the state directory; a process key (with a
 * warning) when it cannot be kept there: the server still starts, and clients connected across a
 * restart are then served as clients without views until they connect again.
 */
async function sessionKeyOf(stateDir: string, log: (line: string) => void): Promise<Buffer | undefined> {
  const { fileKey } = await import('../storage/key-file.js');
  const warn = (m: string) => log(warningLine(m));
  try {
    return await fileKey(join(stateDir, 'http-session.key'), warn, 'session key file').key();
  } catch (e) {
    warn(`the session key could not be kept in ${stateDir} (${(e as Error).message}); one for this run is used`);
    return undefined;
  }
}
