/**
 * The sandbox service: time and size of a full budget export (the first after start, and again)
 * and of a one-change delta at 1,500 and 100,000 transactions, and filtered transaction lists
 * per second. The list load runs in a worker thread (bench/load-worker.mjs), so the service has
 * the main thread to itself; besides requests per second it reports the main thread's busy time
 * per request (event loop utilization), which says what one core sustains even when other work
 * shares the machine.
 */
import { performance as perf } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startSandbox } from '../src/sandbox/app.js';
import { kb, median, ms, timed } from './stats.js';

async function get(url: string, token: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return body.byteLength;
}

/** `concurrency` clients asking `url` for `seconds`: answers per second, and the service's busy time per answer. */
async function load(url: string, token: string, seconds: number, concurrency = 10): Promise<{ perSecond: number; busyMs: number }> {
  const elu = perf.eventLoopUtilization();
  const started = performance.now();
  const result = await new Promise<{ done: number; failed: number }>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.mjs', import.meta.url), { workerData: { url, token, concurrency, ms: seconds * 1000 } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  if (result.failed) throw new Error(`${url}: ${result.failed} answers were not 200`);
  const wall = (performance.now() - started) / 1000;
  return { perSecond: Math.round(result.done / wall), busyMs: perf.eventLoopUtilization(elu).active / result.done };
}

export async function sandboxBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const [sb, startMs] = await timed(() => startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} }));
    const budget = sb.state.budgets[0]!;
    const base = `${sb.baseUrl}/budgets/${budget.id}`;
    const [, firstMs] = await timed(() => get(base, sb.accessToken));
    const fullTimes: number[] = [];
    let fullBytes = 0;
    for (let i = 0; i < 5; i++) {
      const [bytes, t] = await timed(() => get(base, sb.accessToken));
      fullBytes = bytes;
      fullTimes.push(t);
    }
    const account = [...budget.rec.accounts.values()].find((a) => a.on_budget && !a.closed)!;
    const deltaTimes: number[] = [];
    const afterWriteTimes: number[] = [];
    let deltaBytes = 0;
    for (let i = 0; i < 5; i++) {
      const k = budget.knowledge;
      const res = await fetch(`${base}/transactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction: { account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -1000 - i, payee_name: 'Bench' } }),
      });
      await res.arrayBuffer();
      const [bytes, t] = await timed(() => get(`${base}?last_knowledge_of_server=${k}`, sb.accessToken));
      deltaBytes = bytes;
      deltaTimes.push(t);
      afterWriteTimes.push((await timed(() => get(base, sb.accessToken)))[1]);
    }
    // Throughput of a filtered list: the last 90 days' unapproved transactions, 10 clients for 3 seconds.
    const since = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
    await load(`${base}/transactions?since_date=${since}&type=unapproved`, sb.accessToken, 1);
    const list = await load(`${base}/transactions?since_date=${since}&type=unapproved`, sb.accessToken, 3);
    const byAccount = await load(`${base}/accounts/${account.id}/transactions?since_date=${since}`, sb.accessToken, 3);
    report({
      section: 'sandbox',
      transactions: n,
      start: ms(startMs),
      'first export': ms(firstMs),
      export: `${ms(median(fullTimes))}, ${kb(fullBytes)}`,
      'export after a write': ms(median(afterWriteTimes)),
      'one-change delta': `${ms(median(deltaTimes))}, ${kb(deltaBytes)}`,
      'export/delta time': (median(fullTimes) / median(deltaTimes)).toFixed(0),
      'filtered list req/s': list.perSecond,
      'filtered list busy/req': ms(list.busyMs),
      'account list (90 days) req/s': byAccount.perSecond,
    });
    await sb.close();
  }
}
