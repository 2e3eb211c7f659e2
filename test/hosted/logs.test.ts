// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode's logs, as two real instances write them on stderr with --log-format json through a
 * whole run: sign-ins of two users, reads, a write with a memo and a payee, a failing call, a
 * request without a token. Every line is one JSON object; each request has one line with its id
 * (the X-Request-Id the client got), methods, tool, status, duration and its requests to YNAB; the
 * user appears only as hosted mode's keyed hash. And nothing the run used is in the logs: no
 * token, client secret, data key, e-mail, user id, budget id or name, account or payee name, memo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { identityOf } from '../../src/hosted/ynab-grants.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, startInstance, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

interface Person {
  sb: SandboxUser;
  s: SignedIn;
  budgets: { id: string; name: string }[];
}

let d: Deployment;
const people: Person[] = [];
const memo = `log canary memo ${Date.now()}`;
const payee = `Log Canary Payee ${Date.now()}`;
let unauthorizedId = '';
/** Every line the instances wrote on stderr, once they stopped. */
let lines: string[] = [];
const records: Record<string, any>[] = [];
const notJson: string[] = [];

beforeAll(async () => {
  d = await startDeployment({ instances: 2, sandbox: { users: 2 }, args: ['--log-format', 'json'] });
  for (const [i, sb] of d.sandbox.state.users.entries()) {
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Logs Test ${i}`, `http://127.0.0.1:${7810 + i}/callback`), { login: sb.email });
    people.push({ sb, s, budgets: ok(await s.call('list_budgets')).budgets });
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const p of people) {
    for (const b of p.budgets) {
      ok(await p.s.call('list_accounts', { budget_id: b.id }));
      ok(await p.s.call('list_payees', { budget_id: b.id, limit: 5 }));
      ok(await p.s.call('list_transactions', { budget_id: b.id, since_date: today, limit: 5 }));
    }
    ok(await p.s.call('get_user'));
  }
  const p = people[0]!;
  const budget = p.budgets[0]!.id;
  const account = [...p.sb.budgets.find((b) => b.id === budget)!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!;
  ok(
    await p.s.call('create_transactions', {
      budget_id: budget,
      transactions: [{ account_id: account.id, date: today, amount: -3.21, payee_name: payee, memo }],
    }),
  );
  const failed: any = await p.s.call('get_account', { budget_id: budget, account_id: '00000000-0000-4000-8000-000000000000' });
  expect(failed.isError).toBe(true);
  const refused = await fetch(d.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(refused.status).toBe(401);
  unauthorizedId = refused.headers.get('x-request-id') ?? '';
  for (const q of people) await q.s.close();
  // Stopped cleanly (SIGTERM), so that everything they wrote has been read.
  for (const inst of d.instances) await inst!.proc.stop('SIGTERM');
  lines = d.instances.flatMap((inst) => inst!.proc.stderr.split('\n').filter((l) => l !== ''));
  for (const l of lines) {
    try {
      records.push(JSON.parse(l) as Record<string, any>);
    } catch {
      notJson.push(l);
    }
  }
}, 120_000);

afterAll(async () => {
  await d?.close();
});

const requests = () => records.filter((r) => r.msg === 'request');

describe('hosted logs (--log-format json)', () => {
  it('every line on stderr is a JSON object with a time and a level; each request has one line with its fields', () => {
    expect(notJson).toEqual([]);
    expect(lines.length).toBeGreaterThan(30);
    for (const r of records) {
      expect(Number.isNaN(Date.parse(r.time)), JSON.stringify(r)).toBe(false);
      expect(['info', 'warn', 'error']).toContain(r.level);
      expect(typeof r.msg).toBe('string');
    }
    // The start line is one of them.
    expect(records.some((r) => /hosted MCP endpoint .* \(listening on http/.test(r.msg))).toBe(true);
    const calls = requests().filter((r) => r.rpc === 'tools/call');
    expect(calls.length).toBe(people.reduce((n, p) => n + 1 + p.budgets.length * 3 + 1, 0) + 2);
    for (const r of requests()) {
      expect(r.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof r.method).toBe('string');
      expect(typeof r.route).toBe('string');
      expect(Number.isInteger(r.status)).toBe(true);
      expect(r.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(r.upstream_requests)).toBe(true);
    }
    for (const r of calls) {
      expect(r).toMatchObject({ method: 'POST', route: '/mcp', status: 200 });
      expect(r.user, 'the keyed hash of the user').toMatch(/^[0-9a-f]{24}$/);
      // Where its time went: waiting for an admission slot, and out on I/O (Redis, YNAB).
      expect(Number.isInteger(r.queued_ms) && Number.isInteger(r.io_ms), JSON.stringify(r)).toBe(true);
      expect(r.queued_ms + r.io_ms).toBeLessThanOrEqual(r.duration_ms + 1);
    }
    // A call that read from Redis spent time out on it.
    expect(calls.some((r) => r.io_ms > 0)).toBe(true);
    // Ids are unique, and the one a client was given names its line.
    expect(new Set(requests().map((r) => r.request_id)).size).toBe(requests().length);
    expect(requests().find((r) => r.request_id === unauthorizedId)).toMatchObject({ route: '/mcp', status: 401 });
    // Routes name no id: interaction pages are /interaction/:uid.
    expect(requests().some((r) => r.route === '/interaction/:uid')).toBe(true);
    expect(requests().some((r) => r.route === '/oauth/callback')).toBe(true);
  });

  it('the tool of each call and its requests to YNAB are on its line: the first question of a budget costs a request, the repeat none', () => {
    const calls = requests().filter((r) => r.rpc === 'tools/call');
    const byTool = (tool: string) => calls.filter((r) => r.tool === tool);
    expect(byTool('create_transactions')).toHaveLength(1);
    expect(byTool('create_transactions')[0]!.upstream_requests).toBeGreaterThanOrEqual(1);
    expect(byTool('list_accounts')).toHaveLength(people.reduce((n, p) => n + p.budgets.length, 0));
    // Each user's first list_accounts of each budget copied it (one export at least).
    for (const r of byTool('list_accounts')) expect(r.upstream_requests).toBeGreaterThanOrEqual(1);
    // Upstream requests counted on request lines: as many as reached the sandbox's API, less the
    // sign-ins' own check of who signed in (GET /user, outside any MCP call).
    const api = d.upstream.requests.filter((r) => r.url.startsWith('/v1/')).length;
    const counted = requests().reduce((n, r) => n + r.upstream_requests, 0);
    expect(counted).toBeLessThanOrEqual(api);
    expect(counted).toBeGreaterThanOrEqual(api - people.length);
    // The users are told apart, by hosted mode's keyed hash of their YNAB id only.
    const key = new DataKey(parseDataKey(d.env.dataKey, 'YNAB_MCP_DATA_KEY'));
    expect(new Set(calls.map((r) => r.user))).toEqual(new Set(people.map((p) => identityOf(key, p.sb.id))));
  });

  it('nothing the run used is in the logs: no token, secret, key, e-mail, user id, budget, account or payee name, memo', () => {
    const all = lines.join('\n');
    const needles = new Set<string>([memo, payee, d.env.clientSecret, d.env.dataKey, Buffer.from(d.env.dataKey, 'base64').toString('hex')]);
    for (const p of people) {
      needles.add(p.sb.email);
      needles.add(p.sb.id);
      const t = p.s.provider.tokens()!;
      needles.add(t.access_token);
      needles.add(t.refresh_token!);
      for (const b of p.sb.budgets) {
        needles.add(b.id);
        needles.add(b.rec.name);
        for (const a of b.rec.accounts.values()) needles.add(a.name);
        for (const py of b.rec.payees.values()) if (py.name.length >= 6 && !py.name.startsWith('Transfer :')) needles.add(py.name);
      }
    }
    for (const g of d.sandbox.tokens.snapshot().grants) for (const t of [g.access_token, g.refresh_token]) if (t) needles.add(t);
    expect(needles.size).toBeGreaterThan(30);
    expect([...needles].filter((n) => all.includes(n))).toEqual([]);
  });

  it('--log-format text (the default) writes the same request line as text; a format that is not text or json is refused', async () => {
    const text = await startInstance({ ...d.env, args: [] });
    try {
      const res = await fetch(`${text.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(401);
      const id = res.headers.get('x-request-id')!;
      const line = await text.proc.waitFor('stderr', new RegExp(`^http: POST /mcp 401 \\d+ms upstream=0 id=${id}$`, 'm'));
      expect(line[0]).not.toMatch(/^\{/);
    } finally {
      await text.proc.stop();
    }
    await expect(startInstance({ ...d.env, args: ['--log-format', 'xml'] })).rejects.toThrow(/--log-format must be "text" or "json", got "xml"/);
  });
});
