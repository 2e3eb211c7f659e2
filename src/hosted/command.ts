/**
 * `serve --hosted`: checks the flags that do not belong to hosted mode, reads the hosted options
 * (options.ts), starts the instance and stops it cleanly on SIGINT/SIGTERM. Loaded by
 * src/commands/serve.ts only when --hosted is given.
 */
import { intFlag, UsageError, warningLine } from '../shared/cli-flags.js';
import type { McpConfig } from '../mcp/state/config.js';
import { hostedOptions, observabilityOptions } from './options.js';
import { hostedLog } from './request-log.js';
import { withoutRuntimeWarning } from './oidc-load.js';
import { applyTierUp } from './tier-up.js';
import type { HostedServer } from './serve.js';
import type { WatchFlags } from '../shared/watch.js';

export interface HostedCommandContext {
  config: McpConfig;
  maxStalenessMs: number;
  baseUrl: string | undefined;
  log: (line: string) => void;
  watch?: WatchFlags;
}

/** Flags of the single-user server that mean nothing (or something wrong) for many users. */
const NOT_HOSTED: Record<string, string> = {
  sandbox: 'hosted mode serves real YNAB accounts; point --app-url and --base-url at a sandbox to try it',
  seed: 'it belongs to --sandbox',
  budget: 'each user has their own budgets; tools use the last-used budget unless budget_id is given',
  profile: 'each user signs in through their assistant; there is no stored sign-in',
  'http-token': 'hosted mode authenticates with OAuth',
  'http-token-file': 'hosted mode authenticates with OAuth',
};

export async function hostedCommand(flags: Record<string, string | string[] | boolean | undefined>, ctx: HostedCommandContext): Promise<void> {
  if ((flags.transport ?? 'stdio') !== 'http') throw new UsageError('--hosted serves over HTTP: add --transport http');
  for (const [flag, why] of Object.entries(NOT_HOSTED)) if (flags[flag] !== undefined) throw new UsageError(`--${flag} cannot be used with --hosted: ${why}`);
  const observability = observabilityOptions(
    {
      'log-format': flags['log-format'] as string | undefined,
      'metrics-token-file': flags['metrics-token-file'] as string | undefined,
      'metrics-port': flags['metrics-port'] as string | undefined,
    },
    (m) => ctx.log(warningLine(m)),
  );
  // From here every line on stderr is in the chosen format, requests' and the instance's own.
  const out = hostedLog(observability.logFormat);
  out.adoptConsole();
  const log = out.line;
  const warn = (m: string) => log(warningLine(m));
  const hosted = hostedOptions(
    {
      'public-url': flags['public-url'] as string | undefined,
      redis: flags.redis as string | string[] | undefined,
      'app-url': flags['app-url'] as string | undefined,
      'base-url': ctx.baseUrl,
      'drain-seconds': flags['drain-seconds'] as string | undefined,
      'replica-cache-mb': flags['replica-cache-mb'] as string | undefined,
      'concurrent-requests': flags['concurrent-requests'] as string | undefined,
      'requests-in-loop': flags['requests-in-loop'] as string | undefined,
      'allowed-origins': flags['allowed-origins'] as string | undefined,
      'registration-limit': flags['registration-limit'] as string | undefined,
      'registration-window': flags['registration-window'] as string | undefined,
      'allowed-users': flags['allowed-users'] as string | undefined,
    },
    process.env,
    warn,
  );
  // Before the serving code is loaded, so that all of it is optimized by the hosted budget (tier-up.ts).
  log(applyTierUp());
  // Loaded after the console is adopted: the authorization server warns as it loads (all but
  // its runtime check, oidc-load.ts).
  const { serveHosted } = await withoutRuntimeWarning(() => import('./serve.js'));
  const server = await serveHosted({
    hosted,
    config: ctx.config,
    maxStalenessMs: ctx.maxStalenessMs,
    host: flags.host as string | undefined,
    port: intFlag(flags.port as string | undefined, 'port', 0, 65535) ?? 8787,
    log,
    verbose: flags.verbose === true,
    observability,
    requestLog: out,
    watch: ctx.watch,
  });
  log(`ynab-mcp: hosted MCP endpoint ${hosted.resource} (listening on ${server.url}; Redis ${server.store.location})`);
  if (server.metricsUrl) log(`ynab-mcp: metrics at ${server.metricsUrl} (this machine only)`);
  stopOnSignals(server, hosted.drainSeconds, log);
}

/**
 * SIGTERM (or SIGINT): the graceful drain (src/transport/http-health.ts) for at most
 * `drainSeconds`, then Redis closed and exit 0. A second signal exits at once.
 */
function stopOnSignals(server: HostedServer, drainSeconds: number, log: (line: string) => void): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      log(`ynab-mcp: ${signal} again: stopping now`);
      process.exit(1);
    }
    stopping = true;
    log(`ynab-mcp: ${signal}: draining (at most ${drainSeconds} s); /readyz answers 503 and new requests are refused`);
    try {
      const { cut, ms } = await server.drain(drainSeconds * 1000);
      log(`ynab-mcp: drained in ${ms} ms${cut ? `; ${cut} request(s) still in flight are cut` : ''}`);
      await server.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
