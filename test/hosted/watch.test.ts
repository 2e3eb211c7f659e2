// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Issue 44 item 7, hosted: two instances sharing one redis-server watch a user's budget with a
 * short interval (--watch-interval in seconds, allowed by YNAB_MCP_WATCH_SHORT=1 for tests), and a
 * webhook subscription receives each occurrence exactly once at a loopback receiver that checks
 * every Standard Webhooks signature with its own HMAC. The changes are made in the sandbox through
 * its API, as a user does in YNAB, and no MCP call follows them: only the watcher can notice. Each
 * instance in turn is killed (SIGKILL, as a crash) right after a change, mid-interval, so one of
 * the kills hits the lease's holder: the other instance takes the budget once the lease lapses.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { metricsTokenFile } from '../helpers/metrics-token.js';
import { ok } from '../helpers/mcp.js';
import { metricSum, overspendOne, sandboxApi, until } from '../helpers/watched-budget.js';

interface Delivery {
  id: string;
  valid: boolean;
  body: { eventId: string; name: string; data: Record<string, any> };
}

/** A loopback receiver checking each signature with its own copy of the secret; answers verification challenges. */
async function receiver(secret: string) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const got: Delivery[] = [];
  let wake = () => {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      const ts = String(req.headers['webhook-timestamp']);
      const expected = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${text}`).digest('base64')}`;
      const valid = String(req.headers['webhook-signature']).split(' ').includes(expected);
      const body = JSON.parse(text);
      if (body.type === 'verification') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      got.push({ id, valid, body });
      wake();
      res.writeHead(valid ? 200 : 401).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const until = (n: number) =>
    new Promise<void>((resolve) => {
      wake = () => got.length >= n && resolve();
      wake();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, until, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let d: Deployment;
let s: SignedIn;
let user: SandboxUser;
let budgetId: string;
let dir: string;
const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

/** The value of one metric line (summed over the lines that match) in an instance's /metrics. */
const metric = (url: string, pattern: RegExp) => metricSum(url, METRICS_TOKEN, (l) => pattern.test(l));

/** Webhook deliveries recorded, summed over the instances running now. */
async function deliveredNow(): Promise<number> {
  const live = d.instances.filter((i) => i !== undefined);
  const values = await Promise.all(live.map(async (i) => (await metric(i.url, /^ynab_mcp_webhook_deliveries_total\{outcome="delivered"\}/)).value));
  return values.reduce((a, b) => a + b, 0);
}

const recorded = (check: () => Promise<boolean>) => until(check, 30_000, 'timed out waiting for the delivery to be recorded', 100);
const overspend = (taken: Set<string>) =>
  overspendOne(
    sandboxApi(d.sandbox.baseUrl, () => user.accessToken),
    budgetId,
    taken,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-watch-'));
  const tokenFile = metricsTokenFile(dir, METRICS_TOKEN);
  d = await startDeployment({
    instances: 2,
    args: ['--watch-interval', '3s', '--max-staleness', '1', '--metrics-token-file', tokenFile],
    env: { YNAB_MCP_WATCH_SHORT: '1', YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK: '1' },
  });
  user = d.sandbox.state.users[0]!;
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Watch Test', 'http://127.0.0.1:7791/callback'), { login: user.email, era: 'modern' });
  budgetId = ok(await s.call('list_budgets')).budgets[0].id;
}, 120_000);

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two hosted instances watching one budget', () => {
  it('deliver each occurrence to the webhook exactly once, with either instance killed mid-interval', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const rx = await receiver(secret);
    try {
      ok(await s.call('list_accounts', { budget_id: budgetId })); // the budget's conditions now are in its log before the subscription
      await s.client.request(
        {
          method: 'events/subscribe',
          params: { name: 'category.overspent', arguments: { budget_id: budgetId }, delivery: { url: rx.url, secret }, cursor: null, ttlMs: 600_000 },
        } as never,
        z.any(),
      );
      const taken = new Set<string>();
      const overspent: string[] = [];

      // Each kill comes mid-interval: after the delivery before it is recorded (the instances count
      // a delivery once its position has moved past it), not between a POST and its record, where
      // a crash leaves the same webhook-id to be sent again (receivers deduplicate on it).
      let base = await deliveredNow();
      overspent.push(await overspend(taken));
      await rx.until(1);
      await recorded(async () => (await deliveredNow()) >= base + 1);
      await d.kill(0);
      base = await deliveredNow();
      overspent.push(await overspend(taken));
      await rx.until(2);
      await recorded(async () => (await deliveredNow()) >= base + 1);
      await d.start(0);
      await d.kill(1);
      overspent.push(await overspend(taken));
      await rx.until(3);
      // One more interval and a bit: anything sent twice would have arrived by now.
      await new Promise((r) => setTimeout(r, 4_000));

      expect(rx.got.every((g) => g.valid)).toBe(true);
      expect(rx.got.map((g) => g.body.data.category_id).sort()).toEqual([...overspent].sort());
      expect(new Set(rx.got.map((g) => g.body.eventId)).size).toBe(rx.got.length);
      expect(rx.got.every((g) => g.id === g.body.eventId && g.body.name === 'category.overspent')).toBe(true);

      // The instance left standing took the budget after the kill: it detected, delivered, and synced as the watcher.
      const url = d.instances[0]!.url;
      const detected = await metric(url, /^ynab_mcp_events_detected_total\{type="category\.overspent"\}/);
      expect(detected.value).toBeGreaterThanOrEqual(1);
      expect((await metric(url, /^ynab_mcp_webhook_deliveries_total\{outcome="delivered"\}/)).value).toBeGreaterThanOrEqual(1);
      expect((await metric(url, /^ynab_mcp_watch_lag_seconds_count/)).value).toBeGreaterThanOrEqual(1);
      // No budget, category, URL or secret in any label.
      for (const secretish of [budgetId, ...overspent, rx.url, secret.slice(6, 30)]) expect(detected.text).not.toContain(secretish);
    } finally {
      await rx.close();
    }
  }, 120_000);
});
