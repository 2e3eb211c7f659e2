/**
 * The sandbox service: a faithful local implementation of the v1 API with demo budgets.
 * Serves the API under {base_url} = http://HOST:PORT/v1 and OAuth under {app_url}.
 *
 * This file starts one and listens; the rest has a file each: what it holds at the start and its
 * --data wiring (world.ts, durable-wiring.ts), where a request goes (requests.ts), an API
 * request's checks and faults (api-request.ts), and how answers leave, durable first (answers.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { durableAnswers } from './answers.js';
import type { DemoSize } from './demo/index.js';
import { apiRequests } from './api-request.js';
import { FaultInjector, parseFaults } from './faults.js';
import { RateLimiter } from './rate-limit.js';
import { routeRequests } from './requests.js';
import { SendBuffers } from './send-buffers.js';
import type { SandboxState } from './state.js';
import type { BudgetRec } from './store/records.js';
import type { TokenRegistry } from './tokens.js';
import { openWorld } from './world.js';

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
  /** A budget export (the JSON of GET /budgets/{id}) served as the only budget (src/sandbox/export/). */
  from?: string;
  /** User 1's budgets, already loaded (a rehearsal's copy); with dataFile, used only when the file is new. */
  budgets?: BudgetRec[];
  /** Approximate transaction count of the first demo budget. */
  transactions?: number;
  /** Each new user's demo budgets: 'full' (default) or 'small' (one smaller budget, for benchmarks of many users). */
  demo?: DemoSize;
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

/** Listens on host:port; the open sockets are tracked so that close() can end them. */
async function listen(server: Server, port: number, host: string): Promise<{ appUrl: string; port: number; sockets: Set<Socket> }> {
  server.requestTimeout = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { appUrl: `http://${hostForUrl}:${address.port}`, port: address.port, sockets };
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const clock = opts.clock ?? (() => new Date());
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const seed = opts.seed ?? 1;
  const faults = new FaultInjector(parseFaults(opts.faults ?? ''), seed);
  const limiter = new RateLimiter(opts.rateLimit ?? 200, () => clock().getTime());
  const sendBuffers = new SendBuffers();
  const { users, state, client, tokens, oauth, durability } = openWorld(opts, { clock, log, seed });

  const answers = durableAnswers(durability, sendBuffers, log);
  const api = apiRequests({ state, tokens, limiter, faults, requestTimeoutMs: opts.requestTimeoutMs ?? 30_000, strict: opts.strict, answers, log });
  const handle = routeRequests({ api, oauth, answers, verbose: opts.verbose, log });
  const server: Server = createServer((req, res) => void handle(req, res));
  const { appUrl, port, sockets } = await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');

  return {
    baseUrl: `${appUrl}/v1`,
    appUrl,
    port,
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
    flush() {
      durability?.fold();
    },
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
