/**
 * What alerts cost (issue 44), on the sandbox at 1,500 and 100,000 transactions: the detection
 * every sync runs (src/events/detect.ts) on a copy just synced, with its view built anew as after a
 * sync (p50 of 5), the scan recorded in the occurrence log, a poll answered from it; the requests a
 * poll of a fresh copy costs; and webhook deliveries per second to a loopback receiver, signed POSTs
 * alone and through the whole delivery path (webhooks.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { detect, type Condition } from '../src/events/detect.js';
import { post, secretBytes, signature } from '../src/events/webhook-send.js';
import { BudgetView } from '../src/insights/core/view.js';
import { mcpConfig } from '../src/mcp/state/config.js';
import { ServerState } from '../src/mcp/state/state.js';
import { startSandbox } from '../src/sandbox/app.js';
import { RedisStateStore } from '../src/storage/redis-store.js';
import { redisAvailable, startRedis } from '../test/helpers/redis.js';
import type { BenchSection, Reporter } from './section.js';
import { median, ms, percentile, timed } from './stats.js';

/** The CPU time a synchronous step takes (user and system, ms): steadier than the wall clock on a shared machine. */
function cpuOf<T>(step: () => T): [T, number] {
  const start = process.cpuUsage();
  const result = step();
  const used = process.cpuUsage(start);
  return [result, (used.user + used.system) / 1000];
}

async function detection(report: Reporter, n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-events-'));
  const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
  let requests = 0;
  const state = new ServerState(
    mcpConfig({}, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    { stateDir: dir, persist: false, maxStalenessMs: 600_000, quotaLimit: 10_000_000, onRequest: () => (requests += 1) },
  );
  try {
    const stack = await state.ready();
    const replica = (await stack.replicas.fresh('last-used')).replica;
    const now = new Date();
    const times: number[] = [];
    const cpu: number[] = [];
    let found = 0;
    for (let i = 0; i < 5; i++) {
      replica.linesVersion += 1; // as after a sync that changed transactions: nothing reused
      const [[conditions, used], took] = await timed(async () => cpuOf(() => detect(new BudgetView(replica), now)));
      times.push(took);
      cpu.push(used);
      found = conditions.length;
    }
    // After a sync that changed no line (money moved between categories): the view built anew, the
    // checks over every transaction reused (detect.ts).
    const unchanged: number[] = [];
    const unchangedCpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [[, used], took] = await timed(async () => cpuOf(() => detect(new BudgetView(replica), now)));
      unchanged.push(took);
      unchangedCpu.push(used);
    }
    const cached: number[] = [];
    const cachedCpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [[, used], took] = await timed(async () => cpuOf(() => detect(BudgetView.of(replica), now)));
      cached.push(took);
      cachedCpu.push(used);
    }
    const [, recorded] = await timed(() => stack.events.log.record(replica.summary.id, detect(BudgetView.of(replica), now), now));
    const before = requests;
    const [, polled] = await timed(() => stack.events.poll(replica.summary.id, 'category.overspent', {}, null));
    report.row({
      transactions: n,
      step: 'detection, view built anew (each sync)',
      p50: ms(median(times)),
      cpu: ms(median(cpu)),
      conditions: found,
      requests: '',
    });
    report.row({
      transactions: n,
      step: 'detection after a sync that changed no transaction (view built anew, checks over every transaction reused)',
      p50: ms(median(unchanged)),
      cpu: ms(median(unchangedCpu)),
      conditions: found,
      requests: '',
    });
    report.row({
      transactions: n,
      step: 'detection, view already built (rows over every transaction reused too)',
      p50: ms(median(cached)),
      cpu: ms(median(cachedCpu)),
      conditions: found,
      requests: '',
    });
    report.row({ transactions: n, step: 'record one scan (sealed, file store)', p50: ms(recorded), cpu: '', conditions: '', requests: '' });
    report.row({ transactions: n, step: 'events/poll on a fresh copy', p50: ms(polled), cpu: '', conditions: '', requests: requests - before });
    report.figure(`detection per sync at ${n.toLocaleString('en-US')} transactions`, `${ms(median(times))} (CPU ${ms(median(cpu))})`);
    report.figure(
      `detection per sync that changed no transaction at ${n.toLocaleString('en-US')} transactions`,
      `${ms(median(unchanged))} (CPU ${ms(median(unchangedCpu))})`,
    );
  } finally {
    await state.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A loopback receiver that answers every POST 200 at once. */
async function loopbackReceiver(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => server.close() };
}

/** One signed POST at a time, nothing else: the floor under a delivery. */
async function rawPosts(report: Reporter, url: string): Promise<void> {
  const secret = secretBytes(`whsec_${randomBytes(32).toString('base64')}`)!;
  const body = JSON.stringify({ eventId: 'evt_bench', name: 'category.overspent', timestamp: new Date().toISOString(), data: { budget_id: 'b', amount: 1 } });
  const count = 300;
  const each: number[] = [];
  for (let i = 0; i < count; i++) {
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': `evt_${i}`, 'webhook-timestamp': String(ts), 'webhook-signature': signature(secret, `evt_${i}`, ts, body) };
    each.push((await timed(() => post(url, headers, body, { allowLoopback: true })))[1]);
  }
  report.row({
    transactions: '',
    step: `${count} signed POSTs alone, one at a time`,
    p50: ms(median(each)),
    conditions: `p95 ${ms(percentile(each, 95))}`,
    requests: '',
  });
}

/**
 * Deliveries through the real path (webhooks.ts: the subscription's sealed record read before each
 * try, the occurrence signed and POSTed, the position written after), from the occurrence log of a
 * budget to a loopback receiver: 200 occurrences to 1 subscription, then to 10 at once; in the file
 * store (`serve`) and in Redis (hosted mode). Answers the best rate.
 */
async function deliveries(report: Reporter, url: string, where: 'file' | 'redis'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-webhooks-'));
  const redis = where === 'redis' ? await startRedis() : undefined;
  const store = redis ? await RedisStateStore.connect(redis.url, { log: () => undefined }) : undefined;
  const sb = await startSandbox({ seed: 'bench', transactions: 1_500, rateLimit: 10_000_000, log: () => {} });
  const state = new ServerState(
    mcpConfig({}, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    { stateDir: dir, persist: false, maxStalenessMs: 600_000, quotaLimit: 10_000_000, webhooks: { allowLoopback: true }, ...(store ? { store } : {}) },
  );
  let best = 0;
  try {
    const stack = await state.ready();
    const { replica } = await stack.events.refresh('last-used');
    const budgetId = replica.summary.id;
    for (const [round, subscribers] of [1, 10].entries()) {
      const log = await stack.events.log.read(budgetId);
      const ids = Array.from({ length: subscribers }, (_, i) => `sub_bench_${round}_${i}`);
      for (const id of ids)
        await stack.webhooks.upsert({
          id,
          principal: 'bench',
          name: 'category.overspent',
          arguments: {},
          url,
          secret: `whsec_${randomBytes(32).toString('base64')}`,
          budgetId,
          epoch: log.epoch,
          through: log.seq,
          expiresAt: Date.now() + 3_600_000,
          status: { active: true, lastDeliveryAt: null, lastError: null },
        });
      const count = 200;
      const found: Condition[] = Array.from({ length: count }, (_, i) => ({
        name: 'category.overspent',
        key: `category.overspent|bench-${round}-${i}|2099-01`,
        data: { budget_id: budgetId, category_id: `bench-${i}`, amount: 1_000 },
      }));
      await stack.events.log.record(budgetId, found);
      let delivered = 0;
      stack.webhooks.onDelivery = (outcome) => void (outcome === 'ok' && delivered++);
      const [, took] = await timed(() => Promise.all(ids.map((id) => stack.webhooks.deliver(id))));
      const perSecond = Math.round(delivered / (took / 1000));
      best = Math.max(best, perSecond);
      report.row({
        transactions: '',
        step: `${delivered} deliveries: ${count} occurrences to ${subscribers} subscription${subscribers > 1 ? 's' : ''}, ${where === 'redis' ? 'Redis' : 'file store'}`,
        p50: `${perSecond}/s`,
        conditions: `${ms(took)} in all`,
        requests: '',
      });
      for (const id of ids) await stack.webhooks.remove(id);
    }
  } finally {
    await state.close();
    await store?.close();
    await redis?.stop();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return best;
}

export const eventsSection: BenchSection = {
  name: 'events',
  title: 'Alerts (Events extension)',
  about:
    'Detection after each sync at 1,500 and 100,000 transactions (p50 of 5), recording a scan, a poll of a fresh copy (requests to YNAB), and webhook deliveries per second one instance sustains to a loopback receiver (signed POSTs alone, then the whole delivery path to 1 and 10 subscriptions).',
  async run(report) {
    const load = loadavg()[0]!.toFixed(1);
    for (const n of [1_500, 100_000]) await detection(report, n);
    const rx = await loopbackReceiver();
    try {
      await rawPosts(report, rx.url);
      const file = await deliveries(report, rx.url, 'file');
      const redis = redisAvailable() ? await deliveries(report, rx.url, 'redis') : undefined;
      report.figure('webhook deliveries per second, one instance, file store (loopback receiver)', String(file));
      if (redis !== undefined) report.figure('webhook deliveries per second, one instance, Redis (hosted; loopback receiver)', String(redis));
    } finally {
      rx.close();
    }
    await (await import('./events-watch.js')).watchBench(report);
    report.note(
      `Load average when this run started: ${load} on this shared machine; the cpu column is the CPU time the step took, steadier than the wall clock under load.`,
    );
    report.note(
      "Detection is the same scan every sync runs (onSynced); at 100,000 transactions most of it is building the view and the price-rise series (src/insights/recurring/series.ts). Deliveries go through the real path, each try reading the sealed subscription record first so that unsubscribe stops delivery at once: that record read and write, not the POST, bounds the rate. Requests per watched budget per hour and the change-to-webhook latency are the interval watcher's (bench/events-watch.ts).",
    );
  },
};
