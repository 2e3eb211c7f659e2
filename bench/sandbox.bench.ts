/**
 * The sandbox service: time and size of a full budget export and of a one-change delta at
 * 1,500 and 100,000 transactions, and requests per second for a filtered transaction list.
 */
import { startSandbox } from '../src/sandbox/app.js';
import { kb, median, ms, timed } from './stats.js';

async function get(url: string, token: string): Promise<number> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return body.byteLength;
}

export async function sandboxBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  for (const n of [1_500, 100_000]) {
    const [sb, startMs] = await timed(() => startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} }));
    const budget = sb.state.budgets[0]!;
    const base = `${sb.baseUrl}/budgets/${budget.id}`;
    const fullTimes: number[] = [];
    let fullBytes = 0;
    for (let i = 0; i < 5; i++) {
      const [bytes, t] = await timed(() => get(base, sb.accessToken));
      fullBytes = bytes;
      fullTimes.push(t);
    }
    const account = [...budget.rec.accounts.values()].find((a) => a.on_budget && !a.closed)!;
    const deltaTimes: number[] = [];
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
    }
    // Throughput of a filtered list: 10 concurrent requests for 3 seconds.
    const list = `${base}/transactions?since_date=${new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10)}&type=unapproved`;
    let done = 0;
    const until = performance.now() + 3000;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (performance.now() < until) {
          await get(list, sb.accessToken);
          done += 1;
        }
      }),
    );
    report({
      section: 'sandbox',
      transactions: n,
      start: ms(startMs),
      export: `${ms(median(fullTimes))}, ${kb(fullBytes)}`,
      'one-change delta': `${ms(median(deltaTimes))}, ${kb(deltaBytes)}`,
      'export/delta time': (median(fullTimes) / median(deltaTimes)).toFixed(0),
      'filtered list req/s': Math.round(done / 3),
    });
    await sb.close();
  }
}
