/**
 * The sandbox service: a faithful local implementation of the v1 API with demo budgets.
 * Serves the API under {base_url} = http://HOST:PORT/v1 and OAuth under {app_url}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ApiError } from './errors.js';
import { errorAnswer, runOperation, type ApiAnswer } from './api-router.js';
import { createDemoBudgets } from './demo/index.js';
import { Random } from './demo/random.js';
import { FaultInjector, parseFaults } from './faults.js';
import { encodeBody } from './json.js';
import { OAuthServer, oauthParams, type OAuthResponse } from './oauth.js';
import { loadData, saveData, type PersistedTokens } from './persistence.js';
import { RateLimiter } from './rate-limit.js';
import type { SandboxState } from './state.js';
import { BudgetStore } from './store/budget-store.js';
import { exportSegments } from './store/export-segments.js';
import { newSecret, TokenRegistry } from './tokens.js';
import { randomUUID } from 'node:crypto';

export interface SandboxOptions {
  host?: string;
  /** 0 = a free port. */
  port?: number;
  token?: string;
  readOnlyToken?: string;
  seed?: string | number;
  dataFile?: string;
  /** Approximate transaction count of the first demo budget. */
  transactions?: number;
  /** Requests per token per hour. */
  rateLimit?: number;
  faults?: string;
  /** Lifetime of OAuth access tokens, seconds (the service uses 7200). */
  oauthTokenTtl?: number;
  /** Requests running longer end with 503 (the service uses 30 s). */
  requestTimeoutMs?: number;
  clock?: () => Date;
  /** One stderr line per request. */
  verbose?: boolean;
  log?: (line: string) => void;
}

export interface RunningSandbox {
  baseUrl: string;
  appUrl: string;
  port: number;
  accessToken: string;
  readOnlyToken: string;
  oauthClientId: string;
  oauthClientSecret: string;
  state: SandboxState;
  tokens: TokenRegistry;
  /** The announcement printed by `ynab-mcp sandbox`. */
  announcement(): Record<string, string>;
  /** Writes --data now if anything changed. */
  flush(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept',
  'access-control-expose-headers': 'X-Rate-Limit, Retry-After',
  'access-control-max-age': '86400',
};

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function bearerOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : undefined;
  }
  return url.searchParams.get('access_token') ?? undefined;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const clock = opts.clock ?? (() => new Date());
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const seed = opts.seed ?? 1;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
  const faults = new FaultInjector(parseFaults(opts.faults ?? ''), seed);
  const limiter = new RateLimiter(opts.rateLimit ?? 200, () => clock().getTime());
  const tokens = new TokenRegistry(() => clock().getTime(), opts.oauthTokenTtl ?? 7200);

  const saved = opts.dataFile ? loadData(opts.dataFile) : undefined;
  const env = { clock, newId: randomUUID, userId: saved?.user_id ?? new Random(`user:${seed}`).uuid() };
  let dirty = false;
  let saveTimer: NodeJS.Timeout | undefined;
  const scheduleSave = () => {
    if (!opts.dataFile) return;
    dirty = true;
    saveTimer ??= setTimeout(() => {
      // A failed save (disk full, directory gone) must not bring the service down: say so on
      // stderr and try again on the next change and at exit.
      try {
        flush();
      } catch (e) {
        dirty = true;
        log(`sandbox: ${(e as Error).message}; will retry on the next change`);
      }
    }, 250);
  };
  const records = saved?.budgets ?? createDemoBudgets({ seed, now: clock(), userId: env.userId, transactions: opts.transactions });
  const state: SandboxState = {
    userId: env.userId,
    budgets: records.map((rec) => new BudgetStore(rec, env, scheduleSave)),
    lastUsedBudgetId: saved?.last_used_budget_id ?? null,
  };
  const secrets: PersistedTokens = {
    access_token: opts.token ?? saved?.tokens.access_token ?? newSecret('sbx_pat_'),
    read_only_token: opts.readOnlyToken ?? saved?.tokens.read_only_token ?? newSecret('sbx_pat_ro_'),
    oauth_client_id: saved?.tokens.oauth_client_id ?? `sbx-client-${newSecret('').slice(0, 12)}`,
    oauth_client_secret: saved?.tokens.oauth_client_secret ?? newSecret('sbx_secret_'),
  };
  if (saved) tokens.restore(saved.oauth);
  tokens.addPersonal(secrets.access_token, 'full');
  tokens.addPersonal(secrets.read_only_token, 'read-only');
  // Ready before the first request, as the service is: computed figures, the transaction index
  // and the export's encoded segments (at 100,000 transactions that is most of a second).
  for (const b of state.budgets) {
    b.derived();
    exportSegments(b);
  }
  const oauth = new OAuthServer(
    { id: secrets.oauth_client_id, secret: secrets.oauth_client_secret },
    tokens,
    // OAuth grants come with default budget selection: the first budget.
    () => state.budgets[0]?.id ?? null,
    () => clock().getTime(),
  );

  function flush() {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    if (!opts.dataFile || !dirty) return;
    dirty = false;
    const snapshot = tokens.snapshot();
    saveData(opts.dataFile, {
      user_id: state.userId,
      last_used_budget_id: state.lastUsedBudgetId,
      tokens: secrets,
      // Personal tokens are re-added from `tokens` at start; only OAuth grants are kept here.
      oauth: { grants: snapshot.grants.filter((g) => g.kind === 'oauth'), refresh_tokens: snapshot.refresh_tokens },
      budgets: state.budgets.map((b) => b.rec),
    });
  }
  if (opts.dataFile && !saved) {
    dirty = true;
    flush();
  }

  function send(res: ServerResponse, answer: ApiAnswer, extra: Record<string, string> = {}) {
    if (res.headersSent || res.destroyed) return;
    // Entities and export segments encoded once are reused (json.ts) and written as they are.
    const pieces = encodeBody(answer.body);
    const length = pieces.reduce((n, p) => n + p.length, 0);
    res.writeHead(answer.status, {
      ...CORS_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(length),
      ...extra,
      ...answer.headers,
    });
    // The ready pieces go out as they are, uncopied (one writev).
    if (pieces.length === 1) {
      res.end(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, length));
      return;
    }
    res.cork();
    for (const piece of pieces) res.write(piece);
    res.uncork();
    res.end();
  }

  function sendOAuth(res: ServerResponse, r: OAuthResponse) {
    // Issued and revoked grants are changes too: save them like budget writes.
    if (r.status < 400) scheduleSave();
    res.writeHead(r.status, { ...CORS_HEADERS, ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) });
    res.end(r.body);
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, body: string) {
    const auth = tokens.authenticate(bearerOf(req, url));
    if (!auth.ok) {
      send(res, { status: 401, body: new ApiError('not_authorized', auth.detail).body() }, { 'www-authenticate': 'Bearer realm="sandbox", error="invalid_token"' });
      return;
    }
    if (auth.grant.kind === 'oauth') scheduleSave();
    const taken = limiter.take(auth.grant.id);
    if (!taken.ok) {
      const detail = `rate limit of ${limiter.limit} requests per hour exceeded; retry in ${taken.retryAfterSeconds} seconds`;
      send(res, { status: 429, body: new ApiError('too_many_requests', detail).body() }, { 'retry-after': String(taken.retryAfterSeconds) });
      return;
    }
    const rateHeader = { 'x-rate-limit': `${taken.used}/${limiter.limit}` };
    const fault = faults.decide();
    if (fault === '500' || fault === '503') {
      const name = fault === '500' ? 'internal_server_error' : 'service_unavailable';
      send(res, { status: Number(fault), body: new ApiError(name, 'injected fault').body() }, rateHeader);
      return;
    }
    if (fault === 'echo-auth') {
      const detail = `injected fault; the request carried Authorization: ${req.headers.authorization ?? '(none)'}`;
      send(res, { status: 500, body: new ApiError('internal_server_error', detail).body() }, rateHeader);
      return;
    }
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'slow') {
      const fraction = faults.slowFraction();
      if (fraction > 1) {
        await sleep(requestTimeoutMs);
        send(res, { status: 503, body: new ApiError('service_unavailable', `the request took longer than ${requestTimeoutMs / 1000} seconds`).body() }, rateHeader);
        return;
      }
      await sleep(Math.round(fraction * requestTimeoutMs));
    }
    let answer: ApiAnswer;
    try {
      answer = runOperation(state, { method: req.method ?? 'GET', path: url.pathname.slice(3), query: url.searchParams, body, token: auth.info });
    } catch (e) {
      answer = errorAnswer(e, log);
    }
    if (fault === 'reset-after') {
      // The change was applied; the answer is lost on the way back.
      req.socket.destroy();
      return;
    }
    send(res, answer, rateHeader);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      let body: string;
      try {
        body = await readBody(req);
      } catch (e) {
        if (!(e instanceof BodyTooLarge)) throw e;
        send(res, { status: 400, body: new ApiError('bad_request', `the request body is too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MB)`).body() }, { connection: 'close' });
        return;
      }
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) await handleApi(req, res, url, body);
      else if (url.pathname === '/oauth/authorize' && req.method === 'GET') sendOAuth(res, oauth.authorize(url.searchParams));
      else if (url.pathname === '/oauth/token' && req.method === 'POST') sendOAuth(res, oauth.token(oauthParams(req, url, body)));
      else if (url.pathname === '/oauth/revoke' && req.method === 'POST') sendOAuth(res, oauth.revoke(oauthParams(req, url, body)));
      else send(res, { status: 404, body: new ApiError('not_found', `no such endpoint: ${req.method} ${url.pathname}`).body() });
    } catch (e) {
      send(res, errorAnswer(e, log));
    } finally {
      if (opts.verbose) log(`sandbox: ${req.method} ${url.pathname} -> ${res.statusCode} (${Date.now() - started} ms)`);
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
  server.requestTimeout = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const appUrl = `http://${hostForUrl}:${address.port}`;

  return {
    baseUrl: `${appUrl}/v1`,
    appUrl,
    port: address.port,
    accessToken: secrets.access_token,
    readOnlyToken: secrets.read_only_token,
    oauthClientId: secrets.oauth_client_id,
    oauthClientSecret: secrets.oauth_client_secret,
    state,
    tokens,
    announcement() {
      return {
        base_url: `${appUrl}/v1`,
        app_url: appUrl,
        access_token: secrets.access_token,
        read_only_token: secrets.read_only_token,
        oauth_client_id: secrets.oauth_client_id,
        oauth_client_secret: secrets.oauth_client_secret,
      };
    },
    flush,
    close() {
      return new Promise<void>((resolve) => {
        flush();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
