/**
 * What `serve --transport http --hosted` runs with, read and checked before anything starts:
 *  - --public-url: the origin clients reach (behind the TLS terminator). https, or http on a
 *    loopback address for tests only. It names the MCP resource (`<origin>/mcp`), the issuer of the
 *    authorization server and the YNAB redirect URI (`<origin>/oauth/callback`).
 *  - --redis redis://host:port[/db] (or YNAB_MCP_REDIS_URL). A password is not taken on the command
 *    line (every user of the machine can read it): YNAB_MCP_REDIS_URL may carry one, or
 *    YNAB_MCP_REDIS_PASSWORD / YNAB_MCP_REDIS_PASSWORD_FILE. A Redis Cluster is
 *    redis+cluster://host:port,host:port (rediss+cluster:// with TLS), or --redis given once per seed.
 *  - the YNAB OAuth application: YNAB_OAUTH_CLIENT_ID and YNAB_OAUTH_CLIENT_SECRET, each also as
 *    …_FILE (a file holding the value, as container secrets are mounted);
 *  - the data key: YNAB_MCP_DATA_KEY or YNAB_MCP_DATA_KEY_FILE (32 random bytes, base64 or hex);
 *  - --app-url / --base-url: YNAB's OAuth and API origins (the sandbox's in tests).
 *  - --drain-seconds: on SIGTERM, how long requests in flight may take to finish (default 20).
 *  - --replica-cache-mb: the memory this instance gives its users' budget copies, all together
 *    (default 512); past it the least recently used copies are dropped and read from Redis again.
 *  - --concurrent-requests: MCP requests this instance works on at once, the rest waiting in
 *    arrival order (src/transport/http-admission.ts; default 8; 0: no limit).
 *  - --requests-in-loop: of those, how many may be on its event loop at once, computing or waiting
 *    on Redis (default 4; 0: no limit); a request waiting on YNAB leaves its place meanwhile.
 * Every problem is a UsageError that says what is wrong and what is expected.
 */
import { readFileSync, statSync } from 'node:fs';
import { checkBaseUrl } from '../api/client/transport.js';
import { DEFAULT_APP_URL } from '../auth/oauth-login.js';
import { intFlag, UsageError } from '../shared/cli-flags.js';
import { clusterSeeds, clusterUrl } from '../storage/redis-url.js';
import { accessOptions, type AccessFlags, type AccessOptions } from './access-options.js';
import { LOG_FORMATS, type LogFormat } from './request-log.js';
import { DataKey, parseDataKey } from './sealing.js';

export interface HostedOptions {
  /** The public origin, without a trailing slash: https://mcp.example.com */
  publicUrl: string;
  /** The MCP endpoint and the audience of every token issued for it: <publicUrl>/mcp */
  resource: string;
  /** The read-only MCP endpoint, a resource of its own: <publicUrl>/mcp/read-only */
  readOnlyResource: string;
  /** Where YNAB sends the browser back: <publicUrl>/oauth/callback (register it in the YNAB app). */
  ynabRedirectUri: string;
  /** True when the public URL is plain http on loopback: tests only (CIMD documents may be local too). */
  loopbackTest: boolean;
  redisUrl: string;
  ynab: { clientId: string; clientSecret: string; appUrl: string; baseUrl?: string };
  dataKey: DataKey;
  /** The longest graceful drain on SIGTERM, in seconds (command.ts). */
  drainSeconds: number;
  /** The bound of the instance's in-memory cache of budget copies (users.ts). */
  replicaCacheBytes: number;
  /** MCP requests (POSTs) worked on at once; 0: every one at once. */
  concurrentRequests: number;
  /** Requests on the event loop at once (computing, or waiting on Redis); 0: no bound but concurrentRequests. */
  requestsInLoop: number;
  /** Browser origins, client registrations per address, the YNAB users who may sign in (access-options.ts). */
  access: AccessOptions;
}

type Env = Record<string, string | undefined>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const MAX_SECRET_FILE_BYTES = 4096;

/** A value from NAME or NAME_FILE (not both); undefined when neither is set. */
export function secretFromEnv(name: string, env: Env, warn: (m: string) => void): string | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct && file) throw new UsageError(`set ${name} or ${name}_FILE, not both`);
  if (direct !== undefined && direct !== '') return direct.trim();
  if (!file) return undefined;
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new UsageError(`${name}_FILE ${file} is not a file`);
    if (st.size > MAX_SECRET_FILE_BYTES) throw new UsageError(`${name}_FILE ${file} is ${st.size} bytes; it should hold only the value`);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
      warn(`${name}_FILE ${file} can be read by other users (mode ${(st.mode & 0o777).toString(8)}); run: chmod 600 ${file}`);
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${name}_FILE ${file} cannot be read: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`,
    );
  }
  if (!text) throw new UsageError(`${name}_FILE ${file} is empty`);
  return text;
}

export function publicOrigin(value: string | undefined): { origin: string; loopback: boolean } {
  if (!value) throw new UsageError('--hosted needs --public-url: the https origin clients reach, e.g. --public-url https://ynab-mcp.example.com');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--public-url is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.username || url.password) throw new UsageError('--public-url may not carry a user name or password');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new UsageError(
      `--public-url must be an origin (scheme://host[:port]) without a path, query or fragment; the MCP endpoint is <origin>/mcp. Got ${JSON.stringify(value)}`,
    );
  }
  const loopback = LOOPBACK.has(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    throw new UsageError(
      `--public-url must be https (put a TLS terminator in front); plain http is accepted on a loopback address only, for tests. Got ${url.origin}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--public-url must be https, got ${url.protocol}`);
  return { origin: url.origin, loopback: url.protocol === 'http:' };
}

const PASSWORD_ON_COMMAND_LINE =
  '--redis carries a password: a command line can be read by every user of this machine. Pass the URL without it and set YNAB_MCP_REDIS_PASSWORD or YNAB_MCP_REDIS_PASSWORD_FILE, or give the whole URL in YNAB_MCP_REDIS_URL.';

/** Repeated --redis seeds, one cluster URL: each redis://host:port (or all rediss://), nothing else. */
function seedsAsCluster(seeds: string[]): string {
  const schemes = new Set<string>();
  const hosts = seeds.map((seed) => {
    let url: URL;
    try {
      url = new URL(seed);
    } catch {
      throw new UsageError(`--redis ${JSON.stringify(seed)} is not a URL: each cluster seed is redis://host:port (or rediss://)`);
    }
    if (url.password) throw new UsageError(PASSWORD_ON_COMMAND_LINE);
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.username || !['', '/', '/0'].includes(url.pathname) || url.search || !url.port)
      throw new UsageError(
        `--redis given more than once names the seeds of a Redis Cluster, each redis://host:port (or rediss://); got ${JSON.stringify(seed)}`,
      );
    schemes.add(url.protocol);
    return url.host;
  });
  if (schemes.size > 1) throw new UsageError('the Redis Cluster seeds mix redis:// and rediss://: use one or the other for all');
  return `${schemes.has('rediss:') ? 'rediss' : 'redis'}+cluster://${hosts.join(',')}`;
}

/** The Redis URL (or cluster URL) from --redis (once, or once per cluster seed) or YNAB_MCP_REDIS_URL, with its password. */
export function redisUrlFrom(flag: string | string[] | undefined, env: Env, warn: (m: string) => void): string {
  if (Array.isArray(flag)) flag = flag.length > 1 ? seedsAsCluster(flag) : flag[0];
  let cluster: ReturnType<typeof clusterSeeds>;
  const readCluster = (raw: string, what: string) => {
    try {
      cluster = clusterSeeds(raw);
    } catch (e) {
      throw new UsageError(`${what} is not a Redis Cluster URL: ${(e as Error).message}`);
    }
  };
  if (flag !== undefined) {
    readCluster(flag, '--redis');
    if (cluster?.password) throw new UsageError(PASSWORD_ON_COMMAND_LINE);
    if (!cluster) {
      let url: URL;
      try {
        url = new URL(flag);
      } catch {
        throw new UsageError(`--redis is not a URL: expected redis://host:port[/db], rediss://… or redis+cluster://host:port,host:port`);
      }
      if (url.password) throw new UsageError(PASSWORD_ON_COMMAND_LINE);
    }
  }
  const raw = flag ?? env.YNAB_MCP_REDIS_URL;
  if (!raw) throw new UsageError('--hosted needs Redis: --redis redis://host:6379 (or YNAB_MCP_REDIS_URL)');
  readCluster(raw, flag === undefined ? 'YNAB_MCP_REDIS_URL' : '--redis');
  const password = secretFromEnv('YNAB_MCP_REDIS_PASSWORD', env, warn);
  if (cluster) {
    if (password !== undefined) {
      if (cluster.password) throw new UsageError('the Redis URL already carries a password; do not also set YNAB_MCP_REDIS_PASSWORD');
      cluster.password = password;
    }
    return clusterUrl(cluster);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError('YNAB_MCP_REDIS_URL is not a URL: expected redis://[user:password@]host:port[/db] or rediss://…');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new UsageError(`the Redis URL must start with redis:// or rediss:// (redis+cluster:// for a Redis Cluster), got ${url.protocol}//`);
  if (password !== undefined) {
    if (url.password) throw new UsageError('the Redis URL already carries a password; do not also set YNAB_MCP_REDIS_PASSWORD');
    url.password = encodeURIComponent(password);
  }
  return url.toString();
}

export interface HostedFlags extends AccessFlags {
  'public-url'?: string;
  /** One URL, or (given more than once) the seeds of a Redis Cluster. */
  redis?: string | string[];
  'app-url'?: string;
  'base-url'?: string;
  'drain-seconds'?: string;
  'replica-cache-mb'?: string;
  'concurrent-requests'?: string;
  'requests-in-loop'?: string;
}

export const DEFAULT_DRAIN_SECONDS = 20;
/** A few hundred users' copies of demo-sized budgets (about 2 MB each in memory), or fewer, larger ones. */
export const DEFAULT_REPLICA_CACHE_MB = 512;
/**
 * Requests at work at once in an instance (0: no limit). 8 cut a crowd's p99 at 100 x 20 from 3.6
 * to 2.6 s (bench/RESULTS.md, Hosted mode); a request still waiting its turn when the drain begins
 * is refused (src/transport/http-requests.ts), so the drain loses none (test/hosted/admission-drain.test.ts).
 */
export const DEFAULT_CONCURRENT_REQUESTS = 8;
/**
 * Requests on an instance's event loop at once (computing, or waiting on Redis; 0: no bound).
 * Each of a call's waits on Redis lasts one turn of the loop, and a turn is as long as the work
 * of every request in the loop: with a crowd all in, a turn took 100-300 ms and a write (about ten
 * such waits) 1-3 s. Four in the loop (and the writes let in first) took a crowd's p99 at 100 x 20
 * from 1.5-3.1 s to 0.94-1.53 s, in turns (bench/RESULTS.md, Hosted mode); a request waiting on
 * YNAB leaves its place meanwhile.
 */
export const DEFAULT_REQUESTS_IN_LOOP = 4;

export function hostedOptions(flags: HostedFlags, env: Env, warn: (m: string) => void): HostedOptions {
  const { origin, loopback } = publicOrigin(flags['public-url']);
  const redisUrl = redisUrlFrom(flags.redis, env, warn);
  const clientId = secretFromEnv('YNAB_OAUTH_CLIENT_ID', env, warn);
  const clientSecret = secretFromEnv('YNAB_OAUTH_CLIENT_SECRET', env, warn);
  if (!clientId || !clientSecret) {
    throw new UsageError(
      `--hosted needs the YNAB OAuth application: set YNAB_OAUTH_CLIENT_ID and YNAB_OAUTH_CLIENT_SECRET (or …_FILE). Create it at https://app.ynab.com/settings/developer with the redirect URI ${origin}/oauth/callback`,
    );
  }
  const keyText = secretFromEnv('YNAB_MCP_DATA_KEY', env, warn);
  if (!keyText)
    throw new UsageError(
      '--hosted needs a data key: set YNAB_MCP_DATA_KEY or YNAB_MCP_DATA_KEY_FILE to 32 random bytes (openssl rand -base64 32); every instance needs the same one',
    );
  let dataKey: DataKey;
  try {
    dataKey = new DataKey(parseDataKey(keyText, env.YNAB_MCP_DATA_KEY ? 'YNAB_MCP_DATA_KEY' : 'YNAB_MCP_DATA_KEY_FILE'));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let appUrl: string;
  try {
    appUrl = checkBaseUrl(flags['app-url'] ?? DEFAULT_APP_URL).origin;
  } catch (e) {
    throw new UsageError(`--app-url: ${(e as Error).message}`);
  }
  return {
    publicUrl: origin,
    resource: `${origin}/mcp`,
    readOnlyResource: `${origin}/mcp/read-only`,
    ynabRedirectUri: `${origin}/oauth/callback`,
    loopbackTest: loopback,
    redisUrl,
    ynab: { clientId, clientSecret, appUrl, baseUrl: flags['base-url'] },
    dataKey,
    drainSeconds: intFlag(flags['drain-seconds'], 'drain-seconds', 0, 3600) ?? DEFAULT_DRAIN_SECONDS,
    replicaCacheBytes: (intFlag(flags['replica-cache-mb'], 'replica-cache-mb', 16, 1_048_576) ?? DEFAULT_REPLICA_CACHE_MB) * 1024 * 1024,
    concurrentRequests: intFlag(flags['concurrent-requests'], 'concurrent-requests', 0, 10_000) ?? DEFAULT_CONCURRENT_REQUESTS,
    requestsInLoop: intFlag(flags['requests-in-loop'], 'requests-in-loop', 0, 10_000) ?? DEFAULT_REQUESTS_IN_LOOP,
    access: accessOptions(flags, env),
  };
}

/** What hosted mode watches itself with (metrics.ts, request-log.ts): --log-format, --metrics-token-file, --metrics-port. */
export interface ObservabilityOptions {
  logFormat: LogFormat;
  /** The bearer token /metrics on the main server asks for; undefined: not served there. */
  metricsToken?: string;
  /** The loopback port of a metrics server of its own; undefined: none. */
  metricsPort?: number;
}

/** A metrics token shorter than this is guessable. */
export const MIN_METRICS_TOKEN_CHARS = 16;

export function logFormat(value: string | undefined): LogFormat {
  if (value === undefined) return 'text';
  if (!(LOG_FORMATS as readonly string[]).includes(value)) throw new UsageError(`--log-format must be "text" or "json", got ${JSON.stringify(value)}`);
  return value as LogFormat;
}

export function observabilityOptions(
  flags: { 'log-format'?: string; 'metrics-token-file'?: string; 'metrics-port'?: string },
  warn: (m: string) => void,
): ObservabilityOptions {
  const out: ObservabilityOptions = { logFormat: logFormat(flags['log-format']) };
  const file = flags['metrics-token-file'];
  if (file !== undefined) {
    let token: string | undefined;
    const named = (m: string) => m.replace('METRICS_TOKEN_FILE', '--metrics-token-file');
    try {
      // The same checks as every secret file (a file, small, not readable by others, not empty).
      token = secretFromEnv('METRICS_TOKEN', { METRICS_TOKEN_FILE: file }, (m) => warn(named(m)));
    } catch (e) {
      throw e instanceof UsageError ? new UsageError(named(e.message)) : e;
    }
    if (!token || !/^[\x21-\x7e]+$/.test(token))
      throw new UsageError(`--metrics-token-file ${file} should hold one token: printable characters without spaces, on one line`);
    if (token.length < MIN_METRICS_TOKEN_CHARS)
      throw new UsageError(
        `--metrics-token-file ${file} holds a token of ${token.length} characters; use at least ${MIN_METRICS_TOKEN_CHARS} (openssl rand -hex 32)`,
      );
    out.metricsToken = token;
  }
  // 0 would be a port nobody is told of.
  const port = intFlag(flags['metrics-port'], 'metrics-port', 1, 65535);
  if (port !== undefined) out.metricsPort = port;
  return out;
}
