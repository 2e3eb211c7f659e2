// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The round trips a read makes to Redis before its answer, counted on a real redis-server (each
 * request's log line, --log-format json: `redis_round_trips`, commands sent together counting
 * once). A read answered from a copy the instance holds needs three things from Redis: the access
 * token's record, the user's YNAB grant and the budget's written mark. Once the instance has seen
 * the token (whose user never changes) they are sent together: one wait on Redis, not three in
 * sequence, each of which waits its turn on the instance again under a crowd. The token and the
 * grant are still read on every call: a token revoked or a grant gone is refused at once.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

/** The pinned count: at most this many waits on Redis for a read from a held copy (before: 3). */
const HELD_READ_TRIPS = 1;
/**
 * A new sign-in's first call here (its token seen at initialize): the token with the grant and the
 * mark, then its session's budget (before: 5, then 3: the OAuth provider's start read the grant again).
 */
const NEW_TOKEN_TRIPS = 2;
/**
 * A first call after a restart: the token, then the grant, the session's budget and the mark
 * together (before: 5, then 3: the OAuth provider's start read the grant again, and the user's
 * activity, written for the next restart's warm-up, was counted as the call's).
 */
const RESTART_TRIPS = 2;

let d: Deployment;
let s: SignedIn;

beforeAll(async () => {
  // A deadline no start misses: the restart case counts the trips of a user the warm-up read, and on
  // a loaded machine the instance listened 3.7 s after its start, past the default 2.5 s, and read no one.
  d = await startDeployment({ instances: 1, sandbox: { users: 1 }, args: ['--log-format', 'json'], env: { YNAB_MCP_READY_WITHIN_MS: '60000' } });
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Read Trips', 'http://127.0.0.1:7840/callback'), { login: d.sandbox.state.users[0]!.email });
});

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
});

/** The log lines of the instance's tools/calls. */
function calls(): Record<string, any>[] {
  const lines = d.instances[0]!.proc.stderr.split('\n').filter((l) => l.startsWith('{'));
  return lines.map((l) => JSON.parse(l) as Record<string, any>).filter((r) => r.msg === 'request' && r.rpc === 'tools/call');
}

/** The log line of the `n`th tools/call (0-based), once written. */
async function lineAt(n: number): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const all = calls();
    if (all.length > n) return all[n]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line of call ${n}`);
}

/** Deletes the keys matching `pattern` in the deployment's Redis; how many. */
async function deleteKeys(pattern: string): Promise<number> {
  const raw = createClient({ url: d.redis.url });
  await raw.connect();
  try {
    const keys = await raw.keys(pattern);
    return keys.length ? await raw.del(keys) : 0;
  } finally {
    await raw.quit();
  }
}

/** A tools/call of list_payees with `token`, as a client sends it. */
function callWith(token: string): Promise<Response> {
  return fetch(d.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_payees","arguments":{"limit":1}}}',
  });
}

describe("a read's round trips to Redis", () => {
  it('a read from a held copy: the token, the grant and the written mark in one wait on Redis', async () => {
    ok(await s.call('list_accounts')); // the copy read and held, the token seen
    ok(await s.call('list_payees', { limit: 1 }));
    const reads: [string, Record<string, unknown>][] = [
      ['list_payees', { limit: 2 }],
      ['list_categories', {}],
      ['list_accounts', {}],
    ];
    await lineAt(1); // both lines written (a line is written as its answer ends)
    const first = 2;
    for (const [tool, args] of reads) ok(await s.call(tool, args));
    const lines = await Promise.all(reads.map((_, i) => lineAt(first + i)));
    process.stderr.write(`held reads: ${lines.map((l) => `${l.tool} ${l.redis_round_trips}/${l.redis_commands}`).join(', ')}\n`);
    for (const [i, line] of lines.entries()) {
      expect(line.tool).toBe(reads[i]![0]);
      expect(line.upstream_requests, 'answered from the held copy').toBe(0);
      // The token, the grant and the written mark are still read: three commands.
      expect(line.redis_commands).toBeGreaterThanOrEqual(3);
      expect(line.redis_round_trips).toBeLessThanOrEqual(HELD_READ_TRIPS);
    }
  });

  it("a new token of a user the instance knows (another sign-in, an hour's refresh): the grant and the written mark go with each other", async () => {
    const other = await signIn(d.mcpUrl, new MemoryOAuthProvider('Read Trips new token', 'http://127.0.0.1:7842/callback'), {
      login: d.sandbox.state.users[0]!.email,
    });
    try {
      const seen = calls().length;
      expect((await callWith((await other.provider.tokens())!.access_token)).status).toBe(200);
      const line = await lineAt(seen);
      process.stderr.write(`a new token's first call: ${line.redis_round_trips}/${line.redis_commands}\n`);
      expect(line.upstream_requests).toBe(0);
      expect(line.redis_round_trips).toBeLessThanOrEqual(NEW_TOKEN_TRIPS);
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it("after a restart, a recently active user's first call: the grant and the written mark go with each other", async () => {
    await d.kill(0);
    await d.start(0);
    await d.instances[0]!.proc.waitFor('stderr', /warmed up/, 30_000); // ready, the user's copy read (warm-users.ts)
    const token = (await s.provider.tokens())!.access_token;
    expect((await callWith(token)).status).toBe(200);
    const line = await lineAt(0);
    process.stderr.write(`first call after a restart: ${line.redis_round_trips}/${line.redis_commands}\n`);
    expect(line.redis_round_trips).toBeLessThanOrEqual(RESTART_TRIPS);
    // The token; the grant, the session's budget and the mark: the grant read once.
    expect(line.redis_commands).toBeLessThanOrEqual(4);
  });

  it('the token is still read on every call: a token the instance knows, revoked, is refused at its next call', async () => {
    const token = (await s.provider.tokens())!.access_token;
    expect((await callWith(token)).status).toBe(200);
    expect((await callWith(token)).status).toBe(200);
    // Revoked: its record gone from the store (as a revocation leaves it).
    expect(await deleteKeys('ynab-mcp:oauth/AccessToken/*')).toBeGreaterThan(0);
    const res = await callWith(token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('a grant gone (YNAB refused it) is refused at the next call of a token the instance knows', async () => {
    const again = await signIn(d.mcpUrl, new MemoryOAuthProvider('Read Trips 2', 'http://127.0.0.1:7841/callback'), {
      login: d.sandbox.state.users[0]!.email,
    });
    try {
      const token = (await again.provider.tokens())!.access_token;
      expect((await callWith(token)).status).toBe(200);
      expect((await callWith(token)).status).toBe(200);
      expect(await deleteKeys('ynab-mcp:grants/*')).toBe(1);
      const res = await callWith(token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    } finally {
      await again.close().catch(() => undefined);
    }
  });
});
