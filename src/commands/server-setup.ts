/**
 * What `serve`, `tools` and `call` share: the flags that say what the server offers and where its
 * data comes from, the environment variables that stand in for them (named in each --help), and
 * the ServerState they make. `tools` and `call` build their server exactly as `serve` does, so
 * what they show is what a host connected to `serve` with the same flags gets.
 *
 * Modules only some runs need (the sandbox, the credential lookup) are imported when used, so
 * starting the server loads no more than its first tools/list needs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkApiBaseUrl } from '../api/client/base-url.js';
import { ConfigError } from '../api/client/errors.js';
import { storedScope } from '../auth/profile-info.js';
import { accessTokenFromEnv } from '../auth/token-source.js';
import { mcpConfig, type McpConfig } from '../mcp/state/config.js';
import { ServerState, type Connection } from '../mcp/state/state.js';
import { configDir, stateDir } from '../paths.js';
import type { RunningSandbox } from '../sandbox/app.js';
import type { StackOptions } from '../stack/stack.js';
import { intFlag, UsageError, warningLine } from '../shared/cli-flags.js';
import { watchFlags, type WatchFlags } from '../shared/watch.js';
import { SERVE_SANDBOX_SEED } from './sandbox-seed.js';
import { baseUrlFlag } from './secret-flags.js';

/** Flags of the server's content and data source, for parseArgs. */
export const SERVER_FLAGS = {
  sandbox: { type: 'boolean' },
  seed: { type: 'string' },
  from: { type: 'string' },
  budget: { type: 'string' },
  toolsets: { type: 'string' },
  'read-only': { type: 'boolean' },
  writes: { type: 'string' },
  elicitation: { type: 'string' },
  'elicitation-timeout': { type: 'string' },
  'base-url': { type: 'string' },
  'max-staleness': { type: 'string' },
  'watch-interval': { type: 'string' },
  'watch-share': { type: 'string' },
  profile: { type: 'string' },
  verbose: { type: 'boolean' },
} as const;

export const SERVER_FLAGS_HELP = `  --sandbox                serve the local demo budgets (no account needed)
  --seed S                 with --sandbox: demo data seed
  --from FILE              with --sandbox: serve the budget export in FILE (GET /budgets/{id}) instead
  --budget ID|NAME         default budget for tools, by id or name (or YNAB_BUDGET_ID; default "last-used")
  --toolsets LIST          user,budgets,accounts,categories,months,payees,money_movements,transactions,scheduled,
                           insights,planning,changes,rules, or the profile core (default all; list_budgets always)
  --read-only              no write tools, and the client refuses writes (or YNAB_READ_ONLY=1)
  --writes MODE            direct (default): deletes, bulk and split edits, undo and count mismatches
                           answer with a preview and a confirm_token first; confirm: every write does;
                           off: read-only (or YNAB_MCP_WRITES)
  --elicitation on|off     ask the user through the client's confirmation dialog where it has one
                           (default on; or YNAB_MCP_ELICITATION); the confirm_token path always works
  --elicitation-timeout S  a dialog unanswered after S seconds ends in the preview and its confirm_token
                           (default 120; or YNAB_MCP_ELICITATION_TIMEOUT)
  --base-url URL           the API (or YNAB_BASE_URL; default https://api.ynab.com/v1)
  --max-staleness S        answer from the local copy when it is at most S seconds old (default 60; 0 = always check)
  --watch-interval M       sync budgets that alerts are subscribed to every M minutes (default 15, at least 5;
                           or YNAB_MCP_WATCH_INTERVAL)
  --watch-share P          the watcher's share of the hourly requests, in percent (default 10, at most 25;
                           or YNAB_MCP_WATCH_SHARE); interactive calls keep the rest
  --profile NAME           which stored sign-in to use (default "default")
  --verbose                log each HTTP request on stderr (requests to YNAB too)
`;

export const ENVIRONMENT_HELP = `Environment (a flag wins over its variable):
  YNAB_ACCESS_TOKEN        the YNAB token to use, instead of the one stored by "ynab-mcp login"
  YNAB_BUDGET_ID           as --budget             YNAB_READ_ONLY=1     as --read-only
  YNAB_BASE_URL            as --base-url           YNAB_MCP_TOOLSETS    as --toolsets
  YNAB_MCP_WRITES          as --writes             YNAB_MCP_ELICITATION as --elicitation
  YNAB_MCP_SANDBOX=1       as --sandbox
  YNAB_MCP_BUNDLE=1        set by the MCPB bundle: with no token, the first call names the bundle's settings
  YNAB_MCP_STATE_DIR       request ledger and saved budget copies (default: the platform's state directory)
  YNAB_MCP_CONFIG_DIR      where the secrets file lives when there is no OS keychain
  YNAB_MCP_KEYCHAIN=off    never use the OS keychain (the 0600 secrets file instead)
  YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK=1  alert webhooks may call back to plain http on this host (tests, local use)
  YNAB_MCP_WATCH_SHORT=1   --watch-interval may be given in seconds ("20s"; tests and demos only)
  YNAB_MCP_MAX_WEBHOOKS, YNAB_MCP_MAX_STREAMS, YNAB_MCP_WEBHOOK_VERIFY_PER_HOST
                           Events limits per user: webhook subscriptions (default 50), open streams (20),
                           verification handshakes to one host a minute (20)
`;

export type ServerFlags = { [K in keyof typeof SERVER_FLAGS]?: (typeof SERVER_FLAGS)[K]['type'] extends 'boolean' ? boolean : string };

export interface OpenedServer {
  state: ServerState;
  /** The in-process sandbox, with --sandbox. */
  sandbox?: RunningSandbox;
  /** With --sandbox --from: the export file it serves. */
  from?: string;
  /** The state directory kept across runs (none for the throwaway sandbox). */
  stateDir?: string;
  /**
   * Not the sandbox, and no token known at start: none in YNAB_ACCESS_TOKEN, and no sign-in recorded
   * by `login` (what can be known without reading the keychain, which start never does).
   */
  noTokenYet?: boolean;
  close(): Promise<void>;
}

/**
 * --sandbox, or YNAB_MCP_SANDBOX=1: a host that passes only the environment (an MCPB bundle's "Try the
 * demo budgets" setting) asks for the demo budgets this way. A placeholder the host left unfilled is no.
 */
export function sandboxWanted(flags: ServerFlags, env: NodeJS.ProcessEnv): boolean {
  return flags.sandbox === true || /^(1|true|yes|on)$/i.test(env.YNAB_MCP_SANDBOX?.trim() ?? '');
}

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Warnings from the credential code: some carry the prefix already. */
const warn = (message: string) => log(warningLine(message));

/**
 * The base URL to use. A --base-url is checked now: a mistake typed on the command line is refused
 * at start. YNAB_BASE_URL (how hosts that pass only the environment configure it) is checked at
 * the first call, whose error the host shows in the conversation rather than in a log.
 */
function baseUrlOf(flags: ServerFlags, env: NodeJS.ProcessEnv): string | undefined {
  const flag = baseUrlFlag(flags['base-url']);
  if (flag === undefined) return env.YNAB_BASE_URL?.trim() || undefined;
  try {
    checkApiBaseUrl(flag);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`--base-url: ${e.message}`);
    throw e;
  }
  return flag;
}

/** What the content flags ask for: the MCP configuration, the staleness bound and the API's base URL. */
export function serverOptions(
  flags: ServerFlags,
  env: NodeJS.ProcessEnv = process.env,
  /** Serving one local user (stdio, loopback HTTP, an in-process call): tools may read their files by path. */
  localFiles = false,
): { config: McpConfig; maxStalenessMs: number; baseUrl: string | undefined; watch: WatchFlags } {
  let config;
  try {
    config = mcpConfig(
      {
        budget: flags.budget,
        toolsets: flags.toolsets,
        readOnly: flags['read-only'],
        writes: flags.writes,
        elicitation: flags.elicitation,
        elicitationTimeout: flags['elicitation-timeout'],
        demo: flags.sandbox === true,
        localFiles,
      },
      env,
    );
  } catch (e) {
    // Toolset errors name no flag of their own; the writes and dialog ones do.
    if (e instanceof ConfigError) throw new UsageError(/toolset/.test(e.message) ? `--toolsets: ${e.message}` : e.message);
    throw e;
  }
  const maxStaleness = intFlag(flags['max-staleness'], 'max-staleness', 0, 86_400) ?? 60;
  let watch: WatchFlags;
  try {
    watch = watchFlags(flags['watch-interval'], flags['watch-share'], env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return { config, maxStalenessMs: maxStaleness * 1000, baseUrl: baseUrlOf(flags, env), watch };
}

/**
 * Builds the state `serve` would serve with these flags (and starts the sandbox for --sandbox).
 * `localFiles`: it serves one local user (`tools` and `call` run in the user's own process; `serve`
 * says whether it listens on stdio or loopback).
 */
export async function openServer(
  flags: ServerFlags,
  env: NodeJS.ProcessEnv = process.env,
  localFiles = true,
  /** `call`: the sandbox and the server's state are kept between runs (sandbox-home.ts); `fresh` starts them again. */
  keep?: { fresh: boolean },
  /** More of the real server's stack options (rehearse.ts: the rehearsal apply_rehearsal applies). */
  extra: Partial<StackOptions> = {},
): Promise<OpenedServer> {
  if (!flags.sandbox && sandboxWanted(flags, env)) flags = { ...flags, sandbox: true };
  const { config, maxStalenessMs, baseUrl, watch } = serverOptions(flags, env, localFiles);
  if (flags.seed !== undefined && !flags.sandbox) throw new UsageError('--seed only applies with --sandbox');
  if (flags.from !== undefined && !flags.sandbox) throw new UsageError('--from only applies with --sandbox');
  if (flags.from !== undefined && keep) throw new UsageError('--from serves a sandbox for one run; call keeps its sandbox between calls (use serve or tools)');

  if (flags.sandbox) {
    const seed = flags.seed ?? SERVE_SANDBOX_SEED;
    const kept = keep ? await (await import('./sandbox-home.js')).openKeptSandbox({ stateDir: stateDir(env), seed, fresh: keep.fresh, log }) : undefined;
    // Otherwise the demo is local and throwaway: its own state directory, nothing saved.
    const sandbox = kept?.sandbox ?? (await (await import('../sandbox/app.js')).startSandbox({ seed, log, rateLimit: 1_000_000, from: flags.from }));
    const connection: Connection = {
      credentials: { token: async () => sandbox.accessToken },
      info: { source: 'sandbox', kind: 'personal' },
      baseUrl: sandbox.baseUrl,
    };
    const state = new ServerState(
      config,
      async () => connection,
      kept
        ? { stateDir: kept.serverDir, keySource: kept.keySource, maxStalenessMs, watch, log, onRequest: flags.verbose ? requestLog : undefined }
        : {
            stateDir: mkdtempSync(join(tmpdir(), 'ynab-mcp-sandbox-')),
            persist: false,
            maxStalenessMs,
            watch,
            onRequest: flags.verbose ? requestLog : undefined,
          },
    );
    return {
      state,
      sandbox,
      from: flags.from,
      async close() {
        try {
          await state.close();
        } finally {
          await (kept ?? sandbox).close();
        }
      },
    };
  }

  const state_ = stateDir(env);
  const config_ = configDir(env);
  // A read-only OAuth grant is known from what `login` recorded (no keychain is read at start):
  // its write tools are then never offered. A token in the environment is not that grant.
  const startScope = accessTokenFromEnv(env) === null ? storedScope(config_, flags.profile) : undefined;
  const state = new ServerState(
    config,
    async () => {
      const { resolveConnection } = await import('../auth/connection.js');
      return resolveConnection({ configDir: config_, stateDir: state_, profile: flags.profile, baseUrl, warn, env });
    },
    { stateDir: state_, configDir: config_, maxStalenessMs, watch, log, onRequest: flags.verbose ? requestLog : undefined, ...extra },
    startScope,
  );
  state.prepare = () => import('../auth/connection.js');
  return { state, stateDir: state_, noTokenYet: accessTokenFromEnv(env) === null && startScope === undefined, close: () => state.close() };
}

/** --verbose: one line per request to YNAB (method, path, outcome, time; never a header). */
function requestLog(info: { method: string; path: string; outcome: number | string; ms: number }): void {
  log(`api: ${info.method} ${info.path} ${info.outcome} ${info.ms}ms`);
}
