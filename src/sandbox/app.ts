/**
 * The sandbox service: a faithful local implementation of the v1 API with demo budgets.
 * Serves the API under {base_url} = http://HOST:PORT/v1 and OAuth under {app_url}.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ApiError } from './errors.js';
import { errorAnswer, runOperation, type ApiAnswer } from './api-router.js';
import { FaultInjector, parseFaults } from './faults.js';
import { encodeBody } from './json.js';
import { joinsBetter, SendBuffers } from './send-buffers.js';
import { OAuthServer, oauthParams, type OAuthResponse } from './oauth.js';
import { RateLimiter } from './rate-limit.js';
import { Durability, loadDurable } from './durable.js';
import { sandboxState, type SandboxState, type SandboxUser } from './state.js';
import { newUsers } from './users.js';
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
  /** Users, each with their own demo budgets and tokens (default 1). */
  users?: number;
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
  /**
   * Refuse request bodies with fields the API does not define (400 naming them). By default they
   * are ignored, as the service ignores them.
   */
  strict?: boolean;
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
  /** The announcement printed by `ynab-mcp sandbox`: the first user's tokens at the top, every user's in `users`. */
  announcement(): Announcement;
  /** Folds the --data journal into the file now. */
  flush(): void;
  close(): Promise<void>;
}

export interface Announcement {
  base_url: string;
  app_url: string;
  access_token: string;
  read_only_token: string;
  oauth_client_id: string;
  oauth_client_secret: string;
  users: { email: string; access_token: string; read_only_token: string }[];
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
  const sendBuffers = new SendBuffers();
  const tokens = new TokenRegistry(() => clock().getTime(), opts.oauthTokenTtl ?? 7200);

  // The saved state (snapshot and journal), or new users with new demo budgets.
  const loaded = opts.dataFile ? loadDurable(opts.dataFile, log) : undefined;
  const saved = loaded?.data;
  const persistedUsers = saved?.users ?? [];
  const wanted = Math.max(opts.users ?? 1, 1);
  if (persistedUsers.length < wanted)
    persistedUsers.push(...newUsers({ seed, now: clock(), transactions: opts.transactions }, persistedUsers.length + 1, wanted));
  else if (opts.users !== undefined && persistedUsers.length > wanted) {
    log(`sandbox: ${opts.dataFile} holds ${persistedUsers.length} users; all are kept (--users ${wanted} only adds users)`);
  }
  if (opts.token) persistedUsers[0]!.access_token = opts.token;
  if (opts.readOnlyToken) persistedUsers[0]!.read_only_token = opts.readOnlyToken;

  let durability: Durability | undefined;
  const users: SandboxUser[] = persistedUsers.map((u) => {
    const env = { clock, newId: randomUUID, userId: u.id };
    const stores: BudgetStore[] = u.budgets.map((rec) => {
      const store: BudgetStore = new BudgetStore(rec, env, (stamped) => durability?.budgetChanged(store, stamped));
      return store;
    });
    return {
      id: u.id,
      email: u.email,
      budgets: stores,
      lastUsedBudgetId: u.last_used_budget_id,
      accessToken: u.access_token,
      readOnlyToken: u.read_only_token,
    };
  });
  const state = sandboxState(users);
  const client = {
    id: saved?.oauth.client_id || `sbx-client-${newSecret('').slice(0, 12)}`,
    secret: saved?.oauth.client_secret || newSecret('sbx_secret_'),
  };
  if (saved) tokens.restore({ grants: saved.oauth.grants, refresh_tokens: saved.oauth.refresh_tokens });
  for (const u of users) {
    tokens.addPersonal(u.accessToken, 'full', u.id);
    tokens.addPersonal(u.readOnlyToken, 'read-only', u.id);
  }
  // Ready before the first request, as the service is: computed figures, the transaction index
  // and the export's encoded segments (at 100,000 transactions that is most of a second).
  for (const u of users) {
    for (const b of u.budgets) {
      b.derived();
      exportSegments(b);
    }
  }
  const oauth = new OAuthServer(
    client,
    tokens,
    // OAuth grants come with default budget selection: the user's first budget.
    () => users.map((u) => ({ id: u.id, email: u.email, defaultBudgetId: u.budgets[0]?.id ?? null })),
    () => clock().getTime(),
  );
  if (saved) oauth.restoreCodes(saved.oauth.codes);

  if (opts.dataFile) {
    durability = new Durability(
      opts.dataFile,
      loaded?.seq ?? 0,
      () => {
        const snapshot = tokens.snapshot();
        return {
          users: users.map((u) => ({
            id: u.id,
            email: u.email,
            access_token: u.accessToken,
            read_only_token: u.readOnlyToken,
            last_used_budget_id: u.lastUsedBudgetId,
            budgets: u.budgets.map((b) => b.rec),
          })),
          // Personal tokens come from the users; only OAuth grants are kept here.
          oauth: {
            client_id: client.id,
            client_secret: client.secret,
            grants: snapshot.grants.filter((g) => g.kind === 'oauth'),
            refresh_tokens: snapshot.refresh_tokens,
            codes: oauth.pendingCodes(),
          },
        };
      },
      users.flatMap((u) => u.budgets),
      log,
    );
    // Grants, codes and last-used budgets are state too: journaled like budget writes.
    tokens.onChange = (change) => durability!.record('grant' in change ? { kind: 'grant', grant: change.grant } : { kind: 'refresh', entry: change.refresh });
    oauth.onCode = (code, pending) => durability!.record({ kind: 'code', code, pending });
    state.onLastUsed = (user) => durability!.record({ kind: 'last_used', user_id: user.id, budget_id: user.lastUsedBudgetId });
  }

  /** Makes every change so far durable; false (and logged) when the disk refused. */
  function commit(): boolean {
    try {
      durability?.commit();
      return true;
    } catch (e) {
      log(`sandbox: ${(e as Error).message.split('\n')[0]}: a change could not be saved; it is answered as a failure`);
      return false;
    }
  }

  function flush() {
    durability?.fold();
  }

  /** `cut`: the status line, headers and half the body go out, then the connection drops (an answer lost on its way back). */
  function send(res: ServerResponse, answer: ApiAnswer, extra: Record<string, string> = {}, cut = false) {
    if (res.headersSent || res.destroyed) return;
    // Acknowledged means durable: whatever this request changed is on disk before it is answered.
    if (!commit() && answer.status < 300) answer = { status: 500, body: new ApiError('internal_server_error', 'the change could not be saved').body() };
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
    if (cut) {
      res.write(Buffer.concat(pieces, length).subarray(0, length >> 1), () => res.destroy());
      return;
    }
    if (pieces.length === 1) {
      res.end(pieces[0]);
      return;
    }
    // Many small pieces (rows encoded one by one) go out as one buffer, lent until written
    // (send-buffers.ts); larger ones (a list's days, an export's chunks) as they are, uncopied.
    if (joinsBetter(pieces.length, length)) {
      const joined = sendBuffers.join(pieces, length);
      res.once('finish', joined.release);
      res.end(joined.bytes);
      return;
    }
    res.cork();
    for (const piece of pieces) res.write(piece);
    res.uncork();
    res.end();
  }

  function sendOAuth(res: ServerResponse, r: OAuthResponse) {
    // Issued, rotated and revoked grants are changes too: durable before the answer.
    if (!commit() && r.status < 400)
      r = {
        status: 500,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ error: 'server_error', error_description: 'the grant could not be saved' }),
      };
    res.writeHead(r.status, { ...CORS_HEADERS, ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) });
    res.end(r.body);
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, body: string) {
    const auth = tokens.authenticate(bearerOf(req, url));
    if (!auth.ok) {
      send(
        res,
        { status: 401, body: new ApiError('not_authorized', auth.detail).body() },
        { 'www-authenticate': 'Bearer realm="sandbox", error="invalid_token"' },
      );
      return;
    }
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
        send(
          res,
          { status: 503, body: new ApiError('service_unavailable', `the request took longer than ${requestTimeoutMs / 1000} seconds`).body() },
          rateHeader,
        );
        return;
      }
      await sleep(Math.round(fraction * requestTimeoutMs));
    }
    let answer: ApiAnswer;
    try {
      answer = runOperation(
        state,
        { method: req.method ?? 'GET', path: url.pathname.slice(3), query: url.searchParams, body, token: auth.info },
        { strictBodies: opts.strict },
      );
    } catch (e) {
      answer = errorAnswer(e, log);
    }
    if (fault === 'silent') {
      // The change was applied; the connection drops before any of the answer is sent.
      req.socket.destroy();
      return;
    }
    // 'reset-after': the change was applied; the answer is lost on its way back, after its status line.
    send(res, answer, rateHeader, fault === 'reset-after');
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
        send(
          res,
          { status: 400, body: new ApiError('bad_request', `the request body is too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MB)`).body() },
          { connection: 'close' },
        );
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
    accessToken: users[0]!.accessToken,
    readOnlyToken: users[0]!.readOnlyToken,
    oauthClientId: client.id,
    oauthClientSecret: client.secret,
    state,
    tokens,
    announcement() {
      return {
        base_url: `${appUrl}/v1`,
        app_url: appUrl,
        access_token: users[0]!.accessToken,
        read_only_token: users[0]!.readOnlyToken,
        oauth_client_id: client.id,
        oauth_client_secret: client.secret,
        users: users.map((u) => ({ email: u.email, access_token: u.accessToken, read_only_token: u.readOnlyToken })),
      };
    },
    flush,
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        try {
          durability?.close();
        } catch (e) {
          reject(e);
        }
      });
    },
  };
}
