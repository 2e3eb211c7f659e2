/**
 * The sandbox service: time and size of a full budget export (the first after start, again, and
 * after a write), the time of a write, and of a one-change delta at 1,500 and 100,000 transactions, and filtered
 * transaction lists per second. Clients run in a worker thread (bench/load-worker.mjs), so the
 * service has the main thread to itself; besides wall times it reports the main thread's busy
 * time per answer (event loop utilization): what the service itself spends, which stays
 * meaningful when other work shares the machine.
 */
import { performance as perf } from 'node:perf_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { startSandbox } from '../src/sandbox/app.js';
import type { BenchSection } from './section.js';
import { kb, median, ms, timed } from './stats.js';

async function get(url: string, token: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return body.byteLength;
}

function worker<T>(data: Record<string, unknown>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const w = new Worker(new URL('./load-worker.mjs', import.meta.url), { workerData: data });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

/** `count` requests for `url` one after another: the median wall time, the service's busy time per answer, the size. */
async function times(url: string, token: string, count: number): Promise<{ wallMs: number; busyMs: number; bytes: number }> {
  const elu = perf.eventLoopUtilization();
  const r = await worker<{ times: number[]; bytes: number }>({ url, token, count });
  return { wallMs: median(r.times), busyMs: perf.eventLoopUtilization(elu).active / count, bytes: r.bytes };
}

/** `concurrency` clients asking `url` (each of several in turn) for `seconds`: answers per second, and the service's busy time per answer. */
async function load(url: string | string[], token: string, seconds: number, concurrency = 10): Promise<{ perSecond: number; busyMs: number; bytes: number }> {
  const elu = perf.eventLoopUtilization();
  const started = performance.now();
  const result = await worker<{ done: number; failed: number; bytes: number }>({ urls: [url].flat(), token, concurrency, ms: seconds * 1000 });
  if (result.failed) throw new Error(`${[url].flat()[0]}: ${result.failed} answers were not 200`);
  const wall = (performance.now() - started) / 1000;
  return { perSecond: Math.round(result.done / wall), busyMs: perf.eventLoopUtilization(elu).active / result.done, bytes: result.bytes / result.done };
}

/** `load` after a second of warming up (the first answers compile the code they run). */
async function warmLoad(url: string | string[], token: string): Promise<{ perSecond: number; busyMs: number; bytes: number }> {
  await load(url, token, 1);
  return load(url, token, 3);
}

/**
 * The most answers per second the same client gets from a plain node:http server sending a
 * ready-made answer of `bytes` bytes, measured the same way: the ceiling for a list of that size
 * on this machine, whatever the service does to build it.
 */
async function ceiling(bytes: number): Promise<number> {
  const body = Buffer.alloc(Math.round(bytes), 0x20);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return (await warmLoad(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, 'x')).perSecond;
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Answers per second and the answer's size, as one cell; with the ceiling for that size when it binds. */
const rate = (r: { perSecond: number; bytes: number }, top?: number): string =>
  `${r.perSecond} (${kb(r.bytes)}${top === undefined ? '' : `; a ready-made answer of that size: ${top}`})`;

export async function sandboxBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const [sb, startMs] = await timed(() => startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} }));
    const budget = sb.state.budgets[0]!;
    const base = `${sb.baseUrl}/budgets/${budget.id}`;
    const first = await times(base, sb.accessToken, 1);
    const full = await times(base, sb.accessToken, 5);
    const account = [...budget.rec.accounts.values()].find((a) => a.on_budget && !a.closed)!;
    const deltaTimes: number[] = [];
    const afterWriteTimes: number[] = [];
    const writeTimes: number[] = [];
    let deltaBytes = 0;
    for (let i = 0; i < 5; i++) {
      const k = budget.knowledge;
      const [, written] = await timed(async () => {
        const res = await fetch(`${base}/transactions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sb.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            transaction: { account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -1000 - i, payee_name: 'Bench' },
          }),
        });
        return res.arrayBuffer();
      });
      writeTimes.push(written);
      const [bytes, t] = await timed(() => get(`${base}?last_knowledge_of_server=${k}`, sb.accessToken));
      deltaBytes = bytes;
      deltaTimes.push(t);
      afterWriteTimes.push((await times(base, sb.accessToken, 1)).wallMs);
    }
    // Lists by account, category and payee over the last 30 days: the ones an assistant's
    // questions ask for. The category and payee are those of the latest categorized purchase.
    const month = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const latest = [...budget.rec.transactions.values()]
      .filter((t) => !t.deleted && t.category_id && t.payee_id && t.amount < 0 && !t.subtransactions.length)
      .reduce((a, b) => (b.date > a.date ? b : a));
    const accountList = `${base}/accounts/${latest.account_id}/transactions`;
    // The first answer for a window encodes its days (list-runs.ts); later ones read them. Asked
    // before any other list, so that none of its days is encoded yet.
    const account30First = await times(`${accountList}?since_date=${month}`, sb.accessToken, 1);
    // Throughput of a filtered list: the last 90 days' unapproved transactions, 10 clients for 3 seconds.
    const since = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
    const list = await warmLoad(`${base}/transactions?since_date=${since}&type=unapproved`, sb.accessToken);
    const byAccount = await warmLoad(`${base}/accounts/${account.id}/transactions?since_date=${since}`, sb.accessToken);
    const account30 = await warmLoad(`${accountList}?since_date=${month}`, sb.accessToken);
    // 30-day windows ending on 30 different days, asked in turn: shared days, no answer repeated
    // in a row. Under /plans, since until_date is a parameter of the current description only.
    const windows = Array.from(
      { length: 30 },
      (_, i) =>
        `${accountList.replace('/budgets/', '/plans/')}?since_date=${new Date(Date.now() - (30 + i) * 86_400_000).toISOString().slice(0, 10)}&until_date=${new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10)}`,
    );
    const accountWindows = await warmLoad(windows, sb.accessToken);
    const category30 = await warmLoad(`${base}/categories/${latest.category_id}/transactions?since_date=${month}`, sb.accessToken);
    const payee30 = await warmLoad(`${base}/payees/${latest.payee_id}/transactions?since_date=${month}`, sb.accessToken);
    report({
      transactions: n,
      start: ms(startMs),
      'first export': ms(first.wallMs),
      export: `${ms(full.wallMs)}, ${kb(full.bytes)}`,
      'export busy': ms(full.busyMs),
      'a write (median of 5)': ms(median(writeTimes)),
      'export after a write': ms(median(afterWriteTimes)),
      'one-change delta': `${ms(median(deltaTimes))}, ${kb(deltaBytes)}`,
      'export/delta time': (full.wallMs / median(deltaTimes)).toFixed(0),
      'unapproved (90 days) req/s': rate(list),
      'unapproved busy/req': ms(list.busyMs),
      'account (30 days) first answer': ms(account30First.wallMs),
      'account (30 days) req/s': rate(account30, account30.bytes > 200_000 ? await ceiling(account30.bytes) : undefined),
      'account (30 windows of 30 days) req/s': rate(accountWindows, accountWindows.bytes > 200_000 ? await ceiling(accountWindows.bytes) : undefined),
      'category (30 days) req/s': rate(category30),
      'payee (30 days) req/s': rate(payee30),
      'account (90 days) req/s': rate(byAccount, byAccount.bytes > 200_000 ? await ceiling(byAccount.bytes) : undefined),
    });
    await sb.close();
  }
}

export const sandboxSection: BenchSection = {
  name: 'sandbox',
  title: 'Sandbox service',
  about:
    "The local v1 service: time and size of a full budget export and of a one-change delta at 1,500 and 100,000 transactions, the time of a write (a purchase created this month: every computed figure worked out again, and those it moved stamped with its knowledge), and requests per second for filtered transaction lists (10 concurrent clients, 3 s each), with the size of each answer (the client counts the bytes of each answer as they arrive, as wrk does, and checks them against its content-length): the rate of a list is bound by the size of its answer, since the index finds its candidates without scanning and lists of details are read as runs encoded a day at a time. For answers over 200 kB, the rate the same client gets from a plain node:http server sending a ready-made answer of that size is given beside it: the ceiling on this machine. The account list is also measured for its first answer (which encodes its days) and over 30 different 30-day windows asked in turn. A write's computed figures: each month's and category's fingerprint is reused when what it is made from is unchanged (src/sandbox/store/fingerprints.ts, 2026-11-27): a demo budget's write (20 budgets, a purchase in each in turn, warm, in process) 7.4-9.4 ms before, 5.8-6.3 ms after, on the same machine; at 100,000 transactions a write is the arithmetic over every transaction (its median above), which that leaves as it was.",
  run: (r) => sandboxBench((row) => r.row(row)),
};
