/**
 * The interval watcher's figures (issue 44 item 8), with a shortened interval so a run takes
 * seconds: the requests one watched budget costs per interval (counted where they reach the
 * sandbox), carried to an hour at the default 15 minutes; and the time from a change made in the
 * sandbox through its API (a purchase that overspends a category) to its signed webhook POST at a
 * loopback receiver, with no call to the server in between: only the watcher notices. Goal: at
 * most one interval plus 30 s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { tickOf } from '../src/events/watcher-loop.js';
import { mcpConfig } from '../src/mcp/state/config.js';
import { ServerState } from '../src/mcp/state/state.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/app.js';
import { serveHttp } from '../src/transport/http.js';
import { countingReceiver } from '../test/helpers/counting-receiver.js';
import { connect } from '../test/mcp/http-harness.js';
import type { Reporter } from './section.js';
import { median, percentile } from './stats.js';

const s = (msValue: number) => `${(msValue / 1000).toFixed(1)} s`;

/** A server over the sandbox with its watcher at `intervalMs`, counting the budget exports that reach the sandbox. */
function server(sb: RunningSandbox, dir: string, intervalMs: number, exports: { n: number }) {
  return new ServerState(
    mcpConfig({}, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    {
      stateDir: dir,
      persist: false,
      maxStalenessMs: 0,
      quotaLimit: 1_000_000,
      watch: { intervalMs, share: 0.25 },
      onRequest: (r) => void (/\/(budgets|plans)\/[^/]+$/.test(r.path) && (exports.n += 1)),
    },
  );
}

async function api(sb: RunningSandbox, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sb.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return ((await res.json()) as { data: any }).data;
}

/** Requests per watched budget per interval, over `intervals` intervals of `intervalMs` with nobody else asking. */
async function requestsPerInterval(report: Reporter, intervalMs: number, intervals: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-watch-'));
  const sb = await startSandbox({ seed: 'bench', rateLimit: 10_000_000, log: () => {} });
  const exports = { n: 0 };
  const state = server(sb, dir, intervalMs, exports);
  try {
    const stack = await state.ready();
    const budget = (await stack.replicas.fresh('last-used')).replica.summary.id;
    stack.events.watch(budget);
    const from = exports.n;
    await new Promise((r) => setTimeout(r, intervalMs * intervals));
    const per = (exports.n - from) / intervals;
    report.row({
      transactions: '',
      step: `watcher, 1 budget, interval ${s(intervalMs)} (tick ${s(tickOf(intervalMs))}), ${intervals} intervals`,
      p50: '',
      conditions: '',
      requests: `${exports.n - from} (${per.toFixed(2)} per interval)`,
    });
    // One sync per interval: at the default 15 minutes, four an hour.
    report.figure('requests per watched budget per hour (15-minute interval, nobody else asking)', (per * 4).toFixed(1));
  } finally {
    await state.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** From a purchase in the sandbox to its webhook at the receiver, `samples` times. */
async function latency(report: Reporter, intervalMs: number, samples: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-watch-'));
  const sb = await startSandbox({ seed: 'bench', rateLimit: 10_000_000, log: () => {} });
  const state = server(sb, dir, intervalMs, { n: 0 });
  const token = randomBytes(16).toString('hex');
  const http = await serveHttp(state, { port: 0, token });
  // Each event's arrival time, by category.
  const arrived = new Map<string, number>();
  const rx = await countingReceiver((body) => {
    if (body.data?.category_id && !arrived.has(body.data.category_id)) arrived.set(body.data.category_id, performance.now());
  });
  const allowed = process.env.YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK;
  process.env.YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK = '1';
  const client = await connect(http.url, 'modern', token);
  try {
    const budget = (await (await state.ready()).replicas.fresh('last-used')).replica.summary.id;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const params = { name: 'category.overspent', arguments: { budget_id: budget }, delivery: { url: rx.url, secret }, cursor: null, ttlMs: 3_600_000 };
    await client.request({ method: 'events/subscribe', params } as never, z.any());
    const accounts = (await api(sb, 'GET', `/budgets/${budget}/accounts`)).accounts as any[];
    const checking = accounts.find((a) => a.type === 'checking' && !a.closed && a.on_budget);
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const month = (await api(sb, 'GET', `/budgets/${budget}/months/current`)).month;
      const category = (month.categories as any[]).find(
        (c) => !c.deleted && !c.hidden && c.balance > 0 && !arrived.has(c.id) && c.name !== 'Inflow: Ready to Assign',
      );
      if (!category) break;
      // Changes land at different points of the interval, as they would.
      await new Promise((r) => setTimeout(r, Math.random() * intervalMs));
      const date = new Date().toISOString().slice(0, 10);
      const started = performance.now();
      await api(sb, 'POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: checking.id, category_id: category.id, amount: -(category.balance + 1_000), date, approved: true, cleared: 'cleared' },
      });
      while (!arrived.has(category.id) && performance.now() - started < intervalMs + 60_000) await new Promise((r) => setTimeout(r, 20));
      if (arrived.has(category.id)) times.push(arrived.get(category.id)! - started);
    }
    const p95 = percentile(times, 95);
    report.row({
      transactions: '',
      step: `change in the sandbox → webhook received, interval ${s(intervalMs)}, ${times.length} changes`,
      p50: s(median(times)),
      conditions: `p95 ${s(p95)}`,
      requests: '',
    });
    report.figure(`change → webhook p95 at a ${s(intervalMs)} interval`, s(p95), {
      goal: `≤ ${s(intervalMs + 30_000)} (one interval + 30 s)`,
      met: p95 <= intervalMs + 30_000,
    });
  } finally {
    if (allowed === undefined) delete process.env.YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK;
    else process.env.YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK = allowed;
    await client.close();
    await http.close();
    await state.close();
    void rx.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The watcher's rows of the events section (bench/events.bench.ts). */
export async function watchBench(report: Reporter): Promise<void> {
  await requestsPerInterval(report, 2_000, 10);
  await latency(report, 8_000, 8);
  report.note(
    'Watcher: a shortened interval (the flag allows 5 minutes or more; seconds only for tests), one watched budget, nobody else asking; a change is heard at the first tick after its copy is an interval old (ticks every quarter interval, at most 20 s), so the worst case is one interval plus a tick plus one sync and one POST. The requests are held to the watcher share (default 10 % of 200 = 20 an hour: five budgets at 15 minutes).',
  );
}
