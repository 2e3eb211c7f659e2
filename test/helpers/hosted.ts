/**
 * A hosted deployment for tests, all real: a redis-server, hosted instances as child processes
 * (`ynab-mcp serve --transport http --hosted`), a small round-robin proxy in front of them (the
 * load balancer; its address is the public URL), and users who sign in through the full MCP
 * authorization flow with the real MCP client's OAuth support. The test plays the browser:
 * fetch with `redirect: "manual"`, a cookie jar per browser, the consent form submitted, and the
 * YNAB sign-in answered by the sandbox as the user named by `login=<email>`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type ClientCapabilities, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { startSandbox, type Announcement, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/app.js';
import { killAllCli, startCli, type CliProcess } from './cli.js';
import { startRedis } from './redis.js';
import { startRedisCluster, type RunningCluster } from './redis-cluster.js';

type Metadata = OAuthClientProvider['clientMetadata'];
type Tokens = Awaited<ReturnType<OAuthClientProvider['tokens']>>;
type ClientInfo = Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;

// ---------------------------------------------------------------------------------------------
// The load balancer

export interface LoadBalancer {
  url: string;
  /** Where requests go, in turn; replaced as instances come and go. */
  targets: string[];
  /** Requests forwarded to each target (by URL), counted when their answer starts. */
  forwarded: Map<string, number>;
  /** Requests sent to each target whose answer has not started yet. */
  inFlight: Map<string, number>;
  /** Called right after a request was sent to a target, before it can have answered. */
  onForward?: (target: string, body: Buffer) => void;
  /** Targets taken out after they answered 503 with Retry-After (draining): sent nothing more. */
  out: Set<string>;
  /** Requests answered 503 with Retry-After and sent on to the next target. */
  retried: number;
  close(): Promise<void>;
}

/**
 * How the balancer picks an instance: in turn (round robin, the default), or the one with the
 * fewest requests sent and not yet answered (least outstanding requests; ties in turn), as an
 * ALB's least_outstanding_requests or nginx's least_conn does.
 */
export type Balance = 'round-robin' | 'least-outstanding';

/**
 * Forwards each request to the next target (`balance`: in turn, or the least outstanding); a
 * target that refuses the connection is skipped. A 503 with Retry-After (it served nothing of the
 * request: an instance draining, or a store it cannot reach) is what a load balancer's
 * health-aware retry handles: the request goes to the next target, and the last one's answer is
 * passed on. A draining instance (its 503 also closes
 * the connection) is taken out of the rotation (a passive health check), so it can finish its
 * drain undisturbed.
 */
export async function loadBalancer(balance: Balance = 'round-robin'): Promise<LoadBalancer> {
  let next = 0;
  const proxy: LoadBalancer = { url: '', targets: [], forwarded: new Map(), inFlight: new Map(), out: new Set(), retried: 0, close: async () => undefined };
  const flight = (target: string, by: number) => proxy.inFlight.set(target, (proxy.inFlight.get(target) ?? 0) + by);
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number): void => {
    const targets = proxy.targets.filter((t) => !proxy.out.has(t));
    if (!targets.length || tries >= proxy.targets.length) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('no instance reachable');
      return;
    }
    const start = next++;
    let target = targets[start % targets.length]!;
    // A retry (a 503 that served nothing) goes on in turn, never back to the instance that refused it.
    if (balance === 'least-outstanding' && tries === 0)
      for (let i = 1; i < targets.length; i++) {
        const t = targets[(start + i) % targets.length]!;
        if ((proxy.inFlight.get(t) ?? 0) < (proxy.inFlight.get(target) ?? 0)) target = t;
      }
    let landed = false;
    const land = () => {
      if (!landed) flight(target, -1);
      landed = true;
    };
    const up = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      land();
      // A 503 with Retry-After served nothing: tried on the next target while one is left (the
      // last target's answer goes to the client, as a load balancer passes the last one on).
      // One that also closes the connection is draining: taken out of the rotation.
      if (answer.statusCode === 503 && answer.headers['retry-after'] !== undefined && tries + 1 < proxy.targets.length) {
        if (answer.headers.connection === 'close') proxy.out.add(target);
        proxy.retried++;
        answer.resume();
        return forward(req, res, body, tries + 1);
      }
      proxy.forwarded.set(target, (proxy.forwarded.get(target) ?? 0) + 1);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (e: NodeJS.ErrnoException) => {
      land();
      // Refused before anything was sent: that instance is down, the next one gets the request.
      if (!res.headersSent && (e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET') && !up.reusedSocket) forward(req, res, body, tries + 1);
      else res.destroy(e);
    });
    flight(target, 1);
    up.end(body);
    proxy.onForward?.(target, body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), 0));
  });
  // A balancer keeps its clients' idle connections about a minute (an ALB's default is 60 s), not
  // Node's 5 s: a client that waited a few seconds (the crowd, while the instances restart) posted
  // on a connection the proxy was closing, and lost the call ("fetch failed").
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}

// ---------------------------------------------------------------------------------------------
// Instances

export interface HostedEnv {
  redisUrl: string;
  publicUrl: string;
  appUrl: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  dataKey: string;
  /** Extra arguments (e.g. --max-staleness). */
  args?: string[];
  /** Extra environment (e.g. NODE_EXTRA_CA_CERTS). */
  env?: Record<string, string>;
  /** Each instance in a session of its own (CliOptions.ownSession): DeploymentOptions.ownSessions. */
  ownSession?: boolean;
  /** Where the instance listens (default a free port). */
  port?: number;
}

export interface Instance {
  proc: CliProcess;
  url: string;
}

export const newDataKey = (): string => randomBytes(32).toString('base64');

export async function startInstance(env: HostedEnv): Promise<Instance> {
  const proc = startCli(
    [
      'serve',
      '--transport',
      'http',
      '--hosted',
      '--public-url',
      env.publicUrl,
      '--redis',
      env.redisUrl,
      '--app-url',
      env.appUrl,
      '--base-url',
      env.baseUrl,
      '--port',
      String(env.port ?? 0),
      ...(env.args ?? []),
    ],
    {
      env: {
        YNAB_OAUTH_CLIENT_ID: env.clientId,
        YNAB_OAUTH_CLIENT_SECRET: env.clientSecret,
        YNAB_MCP_DATA_KEY: env.dataKey,
        YNAB_ACCESS_TOKEN: undefined,
        ...env.env,
      },
      ownSession: env.ownSession,
    },
  );
  const m = await proc.waitFor('stderr', /listening on (http:\/\/[^/]+)\/mcp/, 60_000);
  return { proc, url: m[1]! };
}

// ---------------------------------------------------------------------------------------------
// An MCP client with OAuth, and a browser

/** The MCP client's side of OAuth, in memory (a real client keeps this in its own storage). */
export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: ClientInfo;
  private saved: Tokens;
  private verifier = '';
  private discovery: Awaited<ReturnType<NonNullable<OAuthClientProvider['discoveryState']>>>;
  readonly stateValue = randomBytes(16).toString('hex');

  constructor(
    readonly name: string,
    readonly redirect = 'http://127.0.0.1:7777/callback',
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): Metadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.stateValue;
  }
  clientInformation(): ClientInfo {
    return this.info;
  }
  saveClientInformation(info: NonNullable<ClientInfo>): void {
    this.info = info;
  }
  tokens(): Tokens {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<Tokens>): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(s: NonNullable<typeof this.discovery>): void {
    this.discovery = s;
  }
  discoveryState(): typeof this.discovery {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
  }
}

export interface BrowseOptions {
  /** The sandbox user YNAB's sign-in approves as (`login=<email>` on its authorize page). */
  login?: string;
  /** What the user clicks on the consent page ('look': nothing; the page is returned). */
  decision?: 'allow' | 'read-only' | 'deny' | 'look';
  /** Changes YNAB's redirect before it is followed (a tampered state, say). */
  tamperYnabRedirect?: (url: URL) => URL;
  /** Every URL the browser visited, in order. */
  visited?: string[];
  /** This browser's cookies, by origin (given to look at them, or to go on in the same browser). */
  jar?: Map<string, Map<string, string>>;
  /** The protocol era the MCP client speaks (default 2025-era, as most assistants still do). */
  era?: 'legacy' | 'modern';
  /** What the MCP client announces (MCP Apps, say). */
  capabilities?: ClientCapabilities;
}

/** A browser: follows redirects by hand, keeps cookies per origin, submits the consent form. */
export async function browse(start: URL, stopAt: string, opts: BrowseOptions = {}): Promise<{ url: URL; status: number; body: string }> {
  const jar = opts.jar ?? new Map<string, Map<string, string>>();
  let url = start;
  let method = 'GET';
  let form: string | undefined;
  for (let hop = 0; hop < 25; hop++) {
    opts.visited?.push(url.toString());
    if (url.toString().startsWith(stopAt)) return { url, status: 0, body: '' };
    const cookies = jar.get(url.origin);
    const headers: Record<string, string> = {};
    if (cookies?.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method, headers, body: form, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (!jar.has(url.origin)) jar.set(url.origin, new Map());
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) jar.get(url.origin)!.delete(name);
      else jar.get(url.origin)!.set(name, value);
    }
    const body = await res.text();
    method = 'GET';
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      let next = new URL(res.headers.get('location')!, url);
      if (next.pathname === '/oauth/authorize' && next.searchParams.has('redirect_uri') && next.searchParams.get('redirect_uri')!.endsWith('/oauth/callback')) {
        // YNAB's sign-in page: the user picks who they are.
        if (opts.login) next.searchParams.set('login', opts.login);
      }
      if (next.pathname === '/oauth/callback' && opts.tamperYnabRedirect) next = opts.tamperYnabRedirect(next);
      url = next;
      continue;
    }
    const action = /<form method="post" action="([^"]+)"/.exec(body);
    if (res.status === 200 && action && opts.decision !== 'look') {
      url = new URL(
        action[1]!.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))),
        url,
      );
      method = 'POST';
      form = new URLSearchParams({ decision: opts.decision ?? 'allow' }).toString();
      continue;
    }
    return { url, status: res.status, body };
  }
  throw new Error('too many redirects');
}

export interface SignedIn {
  client: Client;
  provider: MemoryOAuthProvider;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Connects an MCP client to `mcpUrl`, signing in through the browser when the server asks. */
export async function signIn(mcpUrl: string, provider: MemoryOAuthProvider, opts: BrowseOptions = {}): Promise<SignedIn> {
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    const client = new Client(
      { name: provider.name, version: '1.0.0' },
      {
        ...(opts.era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
        ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
      },
    );
    await client.connect(transport);
    return { client, transport };
  };
  let connected: { client: Client; transport: StreamableHTTPClientTransport };
  try {
    connected = await connect();
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !provider.authorizationUrl) throw e;
    const back = await browse(provider.authorizationUrl, provider.redirect, opts);
    if (back.status !== 0) throw new Error(`the sign-in did not come back to the client: ${back.status} ${back.url} ${back.body.slice(0, 300)}`);
    if (back.url.searchParams.get('state') !== provider.stateValue) throw new Error('the state came back changed');
    const error = back.url.searchParams.get('error');
    if (error)
      throw Object.assign(new Error(`authorization refused: ${error}: ${back.url.searchParams.get('error_description')}`), {
        oauthError: error,
        redirect: back.url,
      });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await transport.finishAuth(back.url.searchParams);
    connected = await connect();
  }
  const { client, transport } = connected;
  return {
    client,
    provider,
    transport,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// What reaches YNAB (the sandbox)

export interface UpstreamRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  authorization?: string;
  /** The form of a POST to /oauth/token (grant_type, …), secrets included: for assertions only. */
  form?: URLSearchParams;
}

export interface RecordingProxy {
  /** The proxy's origin: use `${url}/v1` as the base URL and `url` as the app URL. */
  url: string;
  requests: UpstreamRequest[];
  /** When set, a request is passed on only once what it returns has settled (a slow YNAB). */
  hold?: (request: UpstreamRequest) => Promise<void> | undefined;
  close(): Promise<void>;
}

/** Sits between the instances and the sandbox and records every request (the sandbox's own view of who asked what). */
export async function recordingProxy(targetOrigin: string): Promise<RecordingProxy> {
  const requests: UpstreamRequest[] = [];
  const recording: RecordingProxy = { url: '', requests, close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: UpstreamRequest = { method: req.method ?? 'GET', url: req.url ?? '/', authorization: req.headers.authorization };
      if ((req.url ?? '').startsWith('/oauth/token')) entry.form = new URLSearchParams(body.toString('utf8'));
      requests.push(entry);
      void Promise.resolve(recording.hold?.(entry)).then(() => pass(req, res, body));
    });
  });
  const pass = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const up = httpRequest(`${targetOrigin}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(targetOrigin).host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (e) => res.destroy(e));
    up.end(body);
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  recording.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  recording.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return recording;
}

// ---------------------------------------------------------------------------------------------
// A whole deployment

export interface Deployment {
  /** The Redis (or, with `redis: 'cluster'`, the cluster's URL) the instances share. */
  redis: { url: string; pids(): number[]; stop(): Promise<void> };
  /** The Redis Cluster of three masters, with `redis: 'cluster'`. */
  cluster?: RunningCluster;
  sandbox: RunningSandbox;
  /** Between the instances and the sandbox: what reached YNAB. */
  upstream: RecordingProxy;
  /** The load balancer; its URL is the public URL. */
  proxy: LoadBalancer;
  env: HostedEnv;
  instances: (Instance | undefined)[];
  mcpUrl: string;
  /** Kills instance i at once (SIGKILL: no shutdown, as a crash). */
  kill(i: number): Promise<void>;
  /** Starts instance i again (after kill), behind the proxy. */
  start(i: number): Promise<void>;
  close(): Promise<void>;
}

export interface DeploymentOptions {
  instances?: number;
  sandbox?: SandboxOptions;
  args?: string[];
  env?: Record<string, string>;
  /** One redis-server (the default), or a Redis Cluster of three masters. */
  redis?: 'single' | 'cluster';
  /**
   * The sandbox in a process of its own (`ynab-mcp sandbox`), as YNAB is: the benches' crowd, so
   * that the sandbox's garbage collection (a hundred users' budgets) does not pause the load
   * balancer and the users' clients, which share this process. Its state is then not at hand.
   */
  sandboxProcess?: boolean;
  /**
   * The instances reach the sandbox directly, as they reach YNAB, rather than through the recording
   * proxy in this process (`upstream` then records nothing): the benches' crowd, where that proxy
   * shared this process with a hundred clients and the balancer, and each YNAB request waited its
   * turn there twice. Count YNAB requests from the instances' metrics instead.
   */
  directUpstream?: boolean;
  /** How the load balancer picks an instance (round robin by default). */
  balance?: Balance;
  /**
   * Each instance and each Redis server in a session of its own, with a share of the cores of its
   * own (own-session.ts), as each container of compose.yaml is: the benches' crowd; the sandbox
   * too when it runs in a process of its own (`sandboxProcess`), as YNAB is a service apart.
   * Default: all children of this process, in its session.
   */
  ownSessions?: boolean;
}

/** `ynab-mcp sandbox` in a child process: what a deployment reaches over HTTP, and its announcement. */
async function sandboxProcess(opts: SandboxOptions, ownSession: boolean): Promise<RunningSandbox> {
  const args = ['sandbox', '--port', '0', '--seed', String(opts.seed), '--users', String(opts.users ?? 1), '--rate-limit', String(opts.rateLimit)];
  const proc = startCli([...args, ...(opts.strict ? ['--strict'] : [])], { ownSession });
  const line = (await proc.waitFor('stdout', /^\{.*\}$/m, 600_000))[0];
  const a = JSON.parse(line) as Announcement;
  const absent = (what: string): never => {
    throw new Error(`the sandbox's ${what} is not at hand: it runs in a process of its own here (sandboxProcess)`);
  };
  return {
    baseUrl: a.base_url,
    appUrl: a.app_url,
    port: Number(new URL(a.app_url).port),
    accessToken: a.access_token,
    readOnlyToken: a.read_only_token,
    oauthClientId: a.oauth_client_id,
    oauthClientSecret: a.oauth_client_secret,
    get state() {
      return absent('state');
    },
    get tokens() {
      return absent('tokens');
    },
    announcement: () => a,
    flush: () => absent('flush'),
    close: async () => {
      await proc.stop();
    },
  };
}

export async function startDeployment(opts: DeploymentOptions = {}): Promise<Deployment> {
  const ownSession = opts.ownSessions === true;
  // What has started, stopped again (last first) when a later part fails to start: a bench whose
  // sandbox or instance would not start otherwise waited on the Redis servers it had left running.
  const started: (() => Promise<unknown>)[] = [];
  try {
    const cluster = opts.redis === 'cluster' ? await startRedisCluster({ ownSession }) : undefined;
    const redis = cluster ?? (await startRedis(undefined, { ownSession }));
    started.push(() => redis.stop());
    // Strict: the servers' requests must send only fields the API defines (see mcpHarness).
    const sandboxOptions: SandboxOptions = { seed: 'hosted', log: () => {}, rateLimit: 100_000, strict: true, ...opts.sandbox };
    const sandbox = opts.sandboxProcess ? await sandboxProcess(sandboxOptions, ownSession) : await startSandbox(sandboxOptions);
    started.push(() => sandbox.close());
    const upstream = await recordingProxy(new URL(sandbox.appUrl).origin);
    started.push(() => upstream.close());
    const proxy = await loadBalancer(opts.balance);
    started.push(() => proxy.close());
    const env: HostedEnv = {
      redisUrl: redis.url,
      publicUrl: proxy.url,
      appUrl: opts.directUpstream ? new URL(sandbox.appUrl).origin : upstream.url,
      baseUrl: opts.directUpstream ? `${new URL(sandbox.appUrl).origin}/v1` : `${upstream.url}/v1`,
      clientId: sandbox.oauthClientId,
      clientSecret: sandbox.oauthClientSecret,
      dataKey: newDataKey(),
      args: opts.args,
      env: opts.env,
      ownSession,
    };
    const starting = await Promise.allSettled(Array.from({ length: opts.instances ?? 3 }, () => startInstance(env)));
    for (const s of starting) if (s.status === 'fulfilled') started.push(() => s.value.proc.stop('SIGKILL'));
    const failed = starting.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const instances: (Instance | undefined)[] = starting.map((s) => (s as PromiseFulfilledResult<Instance>).value);
    return deployment({ redis, cluster, sandbox, upstream, proxy, env, instances });
  } catch (e) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw e;
  }
}

/** A deployment whose parts have all started. */
function deployment(
  parts: Pick<Deployment, 'redis' | 'cluster' | 'sandbox' | 'upstream' | 'proxy' | 'env'> & { instances: (Instance | undefined)[] },
): Deployment {
  const { redis, cluster, sandbox, upstream, proxy, env, instances } = parts;
  const sync = () => {
    proxy.targets.splice(0, proxy.targets.length, ...instances.filter((i): i is Instance => i !== undefined).map((i) => i.url));
  };
  sync();
  return {
    redis,
    cluster,
    sandbox,
    upstream,
    proxy,
    env,
    instances,
    mcpUrl: `${proxy.url}/mcp`,
    async kill(i) {
      const inst = instances[i];
      if (!inst) return;
      // The proxy keeps sending to it until connections are refused, as a load balancer whose
      // health check has not noticed yet: requests in flight there are cut.
      await inst.proc.stop('SIGKILL');
      instances[i] = undefined;
      sync();
    },
    async start(i) {
      instances[i] = await startInstance(env);
      sync();
    },
    async close() {
      await killAllCli();
      await proxy.close();
      await upstream.close();
      await sandbox.close();
      await redis.stop();
    },
  };
}
