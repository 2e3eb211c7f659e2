// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Issue 44 item 6 in hosted mode: the alerts resource over 2026-07-28 `subscriptions/listen`.
 * Two instances share one redis-server. Alice's client holds a listen stream on instance 0 naming
 * her budget's alerts URI, while instance 1 watches the budget (an events/stream open there holds
 * its lease): an occurrence instance 1 records reaches her stream on instance 0 as
 * notifications/resources/updated, read from the shared log.
 * Then, with no call at all, the stream alone has her budget watched: an overspending purchase made
 * through the sandbox's API (as in YNAB) reaches her from instance 0's interval watcher. Bob, listening on
 * the same instance and naming Alice's URI, hears nothing: a user's updates are that user's alone.
 * The metrics tell which instance recorded each occurrence.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { metricsTokenFile } from '../helpers/metrics-token.js';
import { ok } from '../helpers/mcp.js';
import { metricSum, overspendOne, sandboxApi, until } from '../helpers/watched-budget.js';

let d: Deployment;
let alice: SignedIn;
let bob: SignedIn;
let aliceUser: SandboxUser;
let budgetId: string;
let dir: string;
const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

const OVERSPENT = 'ynab_mcp_events_detected_total{type="category.overspent"}';

/** The value of one metric (its lines summed) in an instance's /metrics. */
const metric = async (instance: number, name: string) => (await metricSum(d.instances[instance]!.url, METRICS_TOKEN, (l) => l.startsWith(name))).value;
const overspend = (taken: Set<string>) =>
  overspendOne(
    sandboxApi(d.sandbox.baseUrl, () => aliceUser.accessToken),
    budgetId,
    taken,
  );

/** A client connected to one instance, not through the proxy, listening for updates of `uris`. */
async function listenOn(instance: number, who: SignedIn, uris: string[]) {
  const client = new Client({ name: `${who.provider.name} (listening)`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${d.instances[instance]!.url}/mcp`), { authProvider: who.provider }));
  const heard: string[] = [];
  let wake = () => {};
  client.setNotificationHandler('notifications/resources/updated', (n: any) => {
    heard.push(n.params.uri);
    wake();
  });
  const sub = await client.listen({ resourceSubscriptions: uris });
  const until = (count: number, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      wake = () => heard.length >= count && (clearTimeout(timer), resolve(true));
      wake();
    });
  return { client, sub, heard, until, close: async () => (await sub.close(), await client.close()) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-alerts-listen-'));
  const tokenFile = metricsTokenFile(dir, METRICS_TOKEN);
  d = await startDeployment({
    instances: 2,
    // An interval of 20 s: the watcher ticks (and the log is followed) every 5 s.
    args: ['--watch-interval', '20s', '--max-staleness', '1', '--metrics-token-file', tokenFile],
    env: { YNAB_MCP_WATCH_SHORT: '1' },
    sandbox: { users: 2 },
  });
  aliceUser = d.sandbox.state.users[0]!;
  alice = await signIn(d.mcpUrl, new MemoryOAuthProvider('Alice listens', 'http://127.0.0.1:7793/callback'), { login: aliceUser.email, era: 'modern' });
  bob = await signIn(d.mcpUrl, new MemoryOAuthProvider('Bob listens', 'http://127.0.0.1:7794/callback'), {
    login: d.sandbox.state.users[1]!.email,
    era: 'modern',
  });
  budgetId = ok(await alice.call('list_budgets')).budgets[0].id;
  ok(await alice.call('list_accounts', { budget_id: budgetId })); // what is overspent already is in the log before anyone listens
}, 120_000);

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  await bob?.close().catch(() => undefined);
  await d?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the alerts resource over subscriptions/listen, hosted', () => {
  it("watches the budget while the stream is open, hears another instance's occurrence, and tells no other user", async () => {
    const uri = `ynab://budgets/${budgetId}/alerts`;
    // First instance 1 watches the budget (an events/stream open there): its watcher holds the
    // budget's lease, renewed each tick, so instance 0's watcher cannot sync it meanwhile.
    const there = new Client({ name: 'Alice on instance 1', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await there.connect(new StreamableHTTPClientTransport(new URL(`${d.instances[1]!.url}/mcp`), { authProvider: alice.provider }));
    const streamEnds = new AbortController();
    void there
      .request({ method: 'events/stream', params: { name: 'category.overspent', arguments: { budget_id: budgetId } } } as never, z.any(), {
        signal: streamEnds.signal,
        timeout: 600_000,
      })
      .catch(() => 'ended');
    await until(async () => (await metric(1, 'ynab_mcp_watch_lag_seconds_count')) >= 1, 30_000);
    const aliceListens = await listenOn(0, alice, [uri]);
    const bobListens = await listenOn(0, bob, [uri]);
    const taken = new Set<string>();
    try {
      // Recorded by instance 1's watcher; heard on instance 0, from the log in Redis.
      const before = [await metric(0, OVERSPENT), await metric(1, OVERSPENT)];
      await overspend(taken);
      expect(await aliceListens.until(1, 40_000)).toBe(true);
      expect(aliceListens.heard).toEqual([uri]);
      expect(await metric(1, OVERSPENT)).toBe(before[1]! + 1);
      expect(await metric(0, OVERSPENT)).toBe(before[0]);

      // Instance 1 stops watching (its stream ends, its lease lapses): now nothing but the listen
      // stream watches the budget, and only instance 0's interval watcher can notice this.
      streamEnds.abort();
      await there.close();
      await overspend(taken);
      expect(await aliceListens.until(2, 60_000)).toBe(true);
      expect(aliceListens.heard).toEqual([uri, uri]);
      expect(await metric(0, OVERSPENT)).toBe(before[0]! + 1);

      // Bob named Alice's URI on the same instance: her updates were never his.
      expect(bobListens.heard).toEqual([]);
    } finally {
      await aliceListens.close();
      await bobListens.close();
    }
  }, 120_000);
});
