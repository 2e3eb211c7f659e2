// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * After a crowd, an instance's admission is at rest (src/transport/http-admission.ts): no request
 * holds a place in the loop or a slot, none waits, the line has not stood still, and /readyz says
 * ready. Three instances behind the balancer, one place in the loop each (--requests-in-loop 1),
 * twelve users: first every user's first call on every instance at once (each asks YNAB for the
 * user's budgets, away from the loop, beside reading the copy: waits on Redis and an inflate, in
 * branches of one request), then rounds of reads and a write each. Before the fix, a request whose
 * branches came back while its place was taken was given two places and gave one back: a place
 * lost for good each time, so with one place an instance stopped serving at its first calls (this
 * test then failed at its deadline, every instance's requests in line), while /readyz said ready.
 * The crowd's writes are then read back from the sandbox: each landed once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { metricsTokenFile } from '../helpers/metrics-token.js';
import { ok } from '../helpers/mcp.js';
import { sandboxApi } from '../helpers/watched-budget.js';

const METRICS_TOKEN = 'rest-metrics-token-0123456789';
const PEOPLE = 12;
const INSTANCES = 3;
/** Far more than the crowd takes (about 5 s on a loaded CI machine). */
const CROWD_MS = 40_000;
let d: Deployment;
let dir: string;
const users: SignedIn[] = [];

/** One gauge's value on one instance's /metrics. */
async function gauge(instanceUrl: string, name: string): Promise<number> {
  const res = await fetch(new URL('/metrics', instanceUrl), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const family = parsePrometheus(await res.text()).find((f) => f.name === name);
  if (!family) throw new Error(`no ${name} on ${instanceUrl}/metrics`);
  return family.metrics.reduce((n, m) => n + Number(m.value), 0);
}

/** `crowd`, failed with each instance's line when it is not answered within CROWD_MS (an instance that stopped). */
async function answered<T>(crowd: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), CROWD_MS)));
  const outcome = await Promise.race([crowd, late]).finally(() => clearTimeout(timer));
  if (outcome !== 'late') return outcome;
  const lines = await Promise.all(
    urls().map(async (url) => `${url}: ${await gauge(url, 'ynab_mcp_requests_waiting')} waiting, ${await gauge(url, 'ynab_mcp_requests_in_loop')} in the loop`),
  );
  throw new Error(`the crowd was not answered within ${CROWD_MS / 1000} s: ${lines.join('; ')}`);
}

const urls = () => d.instances.filter((i) => i !== undefined).map((i) => i.url);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-rest-'));
  const tokenFile = metricsTokenFile(dir, METRICS_TOKEN);
  d = await startDeployment({
    instances: INSTANCES,
    sandbox: { users: PEOPLE },
    args: ['--requests-in-loop', '1', '--metrics-token-file', tokenFile],
    // Computing an answer on a loaded CI machine may take long: no slot runs out for that here.
    env: { YNAB_MCP_ADMISSION_HOLD_MS: '5000' },
  });
  for (const [i, person] of d.sandbox.state.users.entries()) {
    users.push(await signIn(d.mcpUrl, new MemoryOAuthProvider(`Rest ${i}`, `http://127.0.0.1:${7850 + i}/callback`), { login: person.email }));
  }
});

afterAll(async () => {
  await Promise.all(users.map((u) => u.close().catch(() => undefined)));
  await d?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an instance after a crowd', () => {
  it('holds no place and no slot, has no one waiting, and is ready: every place came back', { timeout: 3 * CROWD_MS }, async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['list_accounts', {}],
      ['list_categories', {}],
      ['list_payees', { limit: 20 }],
      ['get_month', { month: 'current', limit: 20 }],
      ['list_transactions', { limit: 20 }],
    ];
    // Every user's first call on every instance at once: each asks YNAB for the user's budgets
    // (away) beside reading the copy (waits on Redis, an inflate), while the others wait for the place.
    const firsts = await answered(Promise.all(users.map((u) => Promise.all(Array.from({ length: INSTANCES }, () => u.call('list_accounts'))))));
    const accounts = firsts.map(([first]) => (ok(first!).accounts as any[]).find((a) => a.type === 'checking' && !a.closed)!.id as string);
    for (const a of firsts.flat()) ok(a);
    const today = new Date().toISOString().slice(0, 10);
    for (let round = 0; round < 3; round++) {
      const answers = await answered(
        Promise.all(
          users.flatMap((u, i) => [
            ...calls.map(([tool, args]) => u.call(tool, args)),
            // A write: a wait away on YNAB, its lock and its feed, among the reads.
            u.call('create_transactions', {
              transactions: [{ account_id: accounts[i], date: today, amount: -1.25 - round, payee_name: 'Rest', memo: `rest ${round}` }],
            }),
          ]),
        ),
      );
      for (const a of answers) ok(a);
    }
    const instances = urls();
    expect(instances).toHaveLength(INSTANCES);
    for (const url of instances) {
      expect(await gauge(url, 'ynab_mcp_requests_in_loop'), `${url}: places held at rest`).toBe(0);
      expect(await gauge(url, 'ynab_mcp_requests_computing'), `${url}: slots held at rest`).toBe(0);
      expect(await gauge(url, 'ynab_mcp_requests_waiting'), `${url}: requests waiting at rest`).toBe(0);
      expect(await gauge(url, 'ynab_mcp_admission_stalled_seconds'), `${url}: the line stood still`).toBe(0);
      const ready = await fetch(new URL('/readyz', url));
      expect(ready.status, `${url}: /readyz`).toBe(200);
    }
    // And the crowd's writes landed once each, as YNAB (the sandbox) has them.
    for (const person of d.sandbox.state.users) {
      const api = sandboxApi(d.sandbox.baseUrl, () => person.accessToken);
      const budget = (await api('GET', '/budgets/last-used')).budget.id as string;
      const rows = ((await api('GET', `/budgets/${budget}/transactions?since_date=${today}`)).transactions as any[]).filter((t) =>
        String(t.memo).startsWith('rest '),
      );
      expect(rows.map((t) => `${t.memo} ${t.amount} ${t.payee_name}`).sort()).toEqual(['rest 0 -1250 Rest', 'rest 1 -2250 Rest', 'rest 2 -3250 Rest']);
    }
  });
});
