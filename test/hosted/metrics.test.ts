// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode's Prometheus metrics, scraped from a real instance after real use: a sign-in, tool
 * calls (one failing), a 429 from YNAB (another client spent the token's hour), a token refresh.
 * Parsed with a Prometheus text parser; every family the issue names is there, its counts match
 * what the test did and what reached the sandbox; no label names a user, budget or token. /metrics
 * needs the token of --metrics-token-file on the main server, is on 127.0.0.1 without one with
 * --metrics-port, and without either flag is not served at all.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus, { type Family, type Sample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, startInstance, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { metricsTokenFile } from '../helpers/metrics-token.js';
import { ok } from '../helpers/mcp.js';
import { freePort } from '../helpers/free-port.js';

/** The sandbox's requests per token per hour: room for the calls below, and quick to spend. */
const RATE_LIMIT = 40;
/** Tokens live 310 s; the server refreshes 300 s before expiry, so one is due 10 s after it was issued. */
const TOKEN_TTL_S = 310;

const METRICS_TOKEN = `metrics-${'x'.repeat(8)}-${Date.now()}-secret`;
let d: Deployment;
let user: SandboxUser;
let s: SignedIn;
let metricsPort = 0;
let signedInAt = 0;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-metrics-'));
  const tokenFile = metricsTokenFile(dir, METRICS_TOKEN);
  metricsPort = await freePort();
  d = await startDeployment({
    instances: 1,
    sandbox: { users: 1, rateLimit: RATE_LIMIT, oauthTokenTtl: TOKEN_TTL_S },
    args: ['--metrics-token-file', tokenFile, '--metrics-port', String(metricsPort)],
  });
  user = d.sandbox.state.users[0]!;
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Metrics Test', 'http://127.0.0.1:7801/callback'), { login: user.email });
  signedInAt = Date.now();
});

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
});

interface Scrape extends Array<Family> {
  text: string;
}

async function scrape(url = `${d.proxy.url}/metrics`, headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }): Promise<Scrape> {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return Object.assign(parsePrometheus(text), { text });
}

const family = (families: Family[], name: string): Family => {
  const f = families.find((x) => x.name === name);
  if (!f) throw new Error(`no metric family ${name}; there are ${families.map((x) => x.name).join(', ')}`);
  return f;
};
const matches = (m: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v);
/** The sum of a counter's samples with these labels (0 when there are none). */
const total = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  family(families, name)
    .metrics.filter((m) => matches(m, labels))
    .reduce((n, m) => n + Number(m.value), 0);
/**
 * One series of a histogram (`labels`: all its labels but le). The parser merges the series of a
 * labelled histogram into one, so it is given the lines of this series alone, without its labels.
 */
function series(scraped: Scrape, name: string, labels: Record<string, string>): { count: number; sum: number; buckets: Record<string, string> } {
  expect(family(scraped, name).type).toBe('HISTOGRAM');
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = scraped.text
    .split('\n')
    .filter((l) => (l.startsWith('# ') ? l.split(' ')[2] === name : l.startsWith(`${name}_`) && wanted.every((w) => l.includes(w))))
    .map((l) => wanted.reduce((x, w) => x.replace(`,${w}`, '').replace(`${w},`, '').replace(w, ''), l).replace('{}', ''));
  const [f] = parsePrometheus(`${lines.join('\n')}\n`);
  const m = f?.metrics[0];
  return { count: Number(m?.count ?? 0), sum: Number(m?.sum ?? 0), buckets: m?.buckets ?? {} };
}
const observed = (scraped: Scrape, name: string, labels: Record<string, string>) => series(scraped, name, labels).count;
const apiRequests = (from: number) => d.upstream.requests.slice(from).filter((r) => r.url.startsWith('/v1/'));
const refreshRequests = (from: number) =>
  d.upstream.requests.slice(from).filter((r) => r.url.startsWith('/oauth/token') && r.form?.get('grant_type') === 'refresh_token');

describe('hosted metrics', () => {
  it('count requests, tool calls, requests to YNAB (a 429 too), refreshes, copies, Redis and sign-ins, as the sandbox saw them', async () => {
    const before = await scrape();
    const mark = d.upstream.requests.length;
    const budgets = ok(await s.call('list_budgets')).budgets as { id: string }[];
    expect(budgets.length).toBeGreaterThanOrEqual(2);
    const [first, second] = budgets as [{ id: string }, { id: string }];
    ok(await s.call('list_accounts', { budget_id: first.id }));
    ok(await s.call('list_accounts', { budget_id: first.id })); // from the held copy
    ok(await s.call('list_categories', { budget_id: first.id }));
    const missing: any = await s.call('get_account', { budget_id: first.id, account_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.isError).toBe(true);

    // Another application spends the rest of this token's hour; the next request of ours is a 429.
    const grant = d.sandbox.tokens.snapshot().grants.find((g) => g.user_id === user.id && g.refresh_token)!;
    for (let i = 0; i < RATE_LIMIT; i++) {
      const r = await fetch(`${d.sandbox.baseUrl}/user`, { headers: { authorization: `Bearer ${grant.access_token}` } });
      await r.arrayBuffer();
      if (r.status === 429) break;
    }
    const limited: any = await s.call('list_accounts', { budget_id: second.id });
    expect(limited.isError, 'the second budget was never copied: the 429 is the answer').toBe(true);
    expect(Date.now() - signedInAt, 'the token was not due for a refresh yet').toBeLessThan((TOKEN_TTL_S - 300) * 1000);

    // Past the refresh margin: the next call refreshes the token (a new one, with a new hour).
    await new Promise((r) => setTimeout(r, Math.max(0, signedInAt + (TOKEN_TTL_S - 300) * 1000 + 500 - Date.now())));
    ok(await s.call('list_accounts', { budget_id: second.id }));

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

    // Tool calls by tool and outcome: exactly the calls above.
    expect(delta('ynab_mcp_tool_calls_total', { tool: 'list_accounts', outcome: 'ok' })).toBe(3);
    expect(delta('ynab_mcp_tool_calls_total', { tool: 'list_accounts', outcome: 'error' })).toBe(1);
    expect(delta('ynab_mcp_tool_calls_total', { tool: 'get_account', outcome: 'error' })).toBe(1);
    expect(delta('ynab_mcp_tool_calls_total', { tool: 'list_budgets', outcome: 'ok' })).toBe(1);
    expect(delta('ynab_mcp_tool_calls_total')).toBe(7);
    expect(observed(after, 'ynab_mcp_tool_call_duration_seconds', { tool: 'list_accounts' })).toBeGreaterThanOrEqual(4);
    // MCP requests by method and outcome: each tool call is one tools/call request, answered 200.
    expect(delta('ynab_mcp_requests_total', { method: 'tools/call', outcome: 'ok' })).toBe(7);
    expect(observed(after, 'ynab_mcp_request_duration_seconds', { method: 'tools/call' })).toBeGreaterThanOrEqual(7);
    expect(total(after, 'ynab_mcp_requests_total', { method: 'initialize', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    // The sign-in's first call had no token: refused.
    expect(total(after, 'ynab_mcp_requests_total', { outcome: 'refused' })).toBeGreaterThanOrEqual(1);

    // Requests to YNAB by status: as many as reached the sandbox, with the 429 among them.
    const api = apiRequests(mark);
    expect(delta('ynab_mcp_upstream_requests_total')).toBe(api.length);
    expect(delta('ynab_mcp_upstream_requests_total', { status: '429' })).toBeGreaterThanOrEqual(1);
    expect(delta('ynab_mcp_upstream_requests_total', { method: 'GET', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(observed(after, 'ynab_mcp_upstream_request_duration_seconds', { method: 'GET' })).toBeGreaterThanOrEqual(
      api.filter((r) => r.method === 'GET').length,
    );

    // Refreshes: as many as YNAB's token endpoint saw.
    const refreshed = refreshRequests(mark).length;
    expect(refreshed).toBeGreaterThanOrEqual(1);
    expect(delta('ynab_mcp_token_refreshes_total', { outcome: 'refreshed' })).toBe(refreshed);

    // Budget copies: the repeated question was a hit, the first ones misses; the copies held have a size.
    expect(delta('ynab_mcp_replica_cache_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(delta('ynab_mcp_replica_cache_total', { result: 'miss' })).toBeGreaterThanOrEqual(2);
    expect(total(after, 'ynab_mcp_replica_cache_bytes')).toBeGreaterThan(10_000);
    // The queue of requests waiting their turn (--concurrent-requests): there, and empty once all are answered.
    expect(after.find((f) => f.name === 'ynab_mcp_requests_waiting')?.metrics.map((m) => Number(m.value))).toEqual([0]);
    // Copies brought up to date: with one instance, every one by a request to YNAB (an export).
    const exports = api.filter((r) => r.method === 'GET' && /^\/v1\/(budgets|plans)\/[^/?]+(\?|$)/.test(r.url)).length;
    expect(exports).toBeGreaterThanOrEqual(2);
    expect(delta('ynab_mcp_replica_catch_ups_total', { via: 'request' })).toBe(exports);
    expect(delta('ynab_mcp_replica_catch_ups_total', { via: 'changes' }) + delta('ynab_mcp_replica_catch_ups_total', { via: 'copy' })).toBe(0);

    // Redis commands, timed.
    expect(observed(after, 'ynab_mcp_redis_command_duration_seconds', { command: 'GET' })).toBeGreaterThan(0);
    expect(observed(after, 'ynab_mcp_redis_command_duration_seconds', { command: 'GET' })).toBeGreaterThan(
      observed(before, 'ynab_mcp_redis_command_duration_seconds', { command: 'GET' }),
    );
    const redisGet = series(after, 'ynab_mcp_redis_command_duration_seconds', { command: 'GET' });
    expect(redisGet.sum).toBeGreaterThan(0);
    expect(redisGet.sum / redisGet.count).toBeLessThan(1);
    expect(Number(redisGet.buckets['+Inf'])).toBe(redisGet.count);

    // Sign-ins: the one of this test.
    expect(total(after, 'ynab_mcp_sign_ins_total', { outcome: 'ok' })).toBe(1);

    // Nothing anywhere names the user, a budget or a token.
    const text = await (await fetch(`${d.proxy.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const secrets = [
      user.id,
      user.email,
      METRICS_TOKEN,
      s.provider.tokens()!.access_token,
      s.provider.tokens()!.refresh_token!,
      ...budgets.map((b) => b.id),
      ...user.budgets.map((b) => b.rec.name),
      ...d.sandbox.tokens
        .snapshot()
        .grants.flatMap((g) => [g.access_token, g.refresh_token ?? ''])
        .filter(Boolean),
    ];
    expect(secrets.filter((x) => text.includes(x))).toEqual([]);
    for (const f of after)
      for (const m of f.metrics) for (const v of Object.values(m.labels ?? {})) expect(v, `${f.name} label`).toMatch(/^[A-Za-z0-9_./+-]{1,40}$/);
  });

  it('the --metrics-port server answers on 127.0.0.1 without a token, with the same figures', async () => {
    const families = await scrape(`http://127.0.0.1:${metricsPort}/metrics`, {});
    expect(total(families, 'ynab_mcp_sign_ins_total', { outcome: 'ok' })).toBe(1);
    expect(family(families, 'ynab_mcp_tool_calls_total').metrics.length).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/mcp`)).status).toBe(404);
  });

  it('/metrics on the main server needs the token: 401 without it or with another', async () => {
    const none = await fetch(`${d.proxy.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await none.text()).not.toContain('ynab_mcp_');
    const wrong = await fetch(`${d.proxy.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('ynab_mcp_');
    // Not an MCP token either: a user's MCP access token is not the metrics token.
    const mcpToken = await fetch(`${d.proxy.url}/metrics`, { headers: { authorization: `Bearer ${s.provider.tokens()!.access_token}` } });
    expect(mcpToken.status).toBe(401);
  });

  it('an instance started without --metrics-token-file and --metrics-port serves no metrics: 404', async () => {
    const bare = await startInstance({ ...d.env, args: [] });
    try {
      const res = await fetch(`${bare.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('ynab_mcp_');
    } finally {
      await bare.proc.stop();
    }
  });
});
