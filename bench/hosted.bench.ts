/**
 * Hosted mode under load: three instances behind a round-robin proxy, one redis-server, the
 * sandbox with 20 users; each user signs in through the full MCP authorization flow, then the 20
 * work at once, 50 calls each (an assistant's mix: mostly questions, 2% writes). Reports calls/s,
 * p50/p99, upstream requests per user (what reached YNAB during the run, sign-in excluded) and
 * Redis memory per user (MEMORY USAGE of every key, by kind).
 */
import { loadavg } from 'node:os';
import { RedisStateStore } from '../src/storage/redis-store.js';
import { MemoryOAuthProvider, signIn, startDeployment, type SignedIn } from '../test/helpers/hosted.js';
import type { BenchSection } from './section.js';
import { kb, median, ms, percentile } from './stats.js';

const USERS = 20;
const CALLS = 50;

export async function hostedBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  const d = await startDeployment({ instances: 3, sandbox: { users: USERS, rateLimit: 100_000 } });
  const clients: SignedIn[] = [];
  try {
    const people = d.sandbox.announcement().users;
    const signInTimes: number[] = [];
    for (let u = 0; u < USERS; u++) {
      const t0 = performance.now();
      clients.push(await signIn(d.mcpUrl, new MemoryOAuthProvider(`bench ${u}`), { login: people[u]!.email }));
      signInTimes.push(performance.now() - t0);
    }
    const today = new Date().toISOString().slice(0, 10);
    const accounts = await Promise.all(
      clients.map(
        async (c) => ((await c.call('list_accounts')) as any).structuredContent.accounts.find((a: any) => a.type === 'checking' && !a.closed)?.id as string,
      ),
    );
    const mark = d.upstream.requests.length;
    const latencies: number[] = [];
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, u) => {
        for (let i = 0; i < CALLS; i++) {
          const n = u * CALLS + i;
          const pick = n % 10;
          const [name, args]: [string, Record<string, unknown>] =
            n % 50 === 7
              ? [
                  'create_transactions',
                  { transactions: [{ account_id: accounts[u], date: today, amount: -1 - i / 100, payee_name: 'Bench', memo: `bench ${u}-${i}` }] },
                ]
              : pick < 3
                ? ['list_transactions', { limit: 20 }]
                : pick < 5
                  ? ['list_accounts', {}]
                  : pick < 7
                    ? ['get_month', { month: 'current', limit: 20 }]
                    : pick < 9
                      ? ['list_categories', {}]
                      : ['list_payees', { limit: 20 }];
          const t0 = performance.now();
          const res: any = await client.call(name, args).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
          latencies.push(performance.now() - t0);
          if (res.isError) errors += 1;
        }
      }),
    );
    const wall = performance.now() - started;
    const upstream = d.upstream.requests.slice(mark).filter((r) => r.url.startsWith('/v1/')).length;
    // For scale: one user alone, one call at a time, on the same deployment.
    const alone: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      await clients[0]!.call(i % 2 ? 'list_accounts' : 'list_categories');
      alone.push(performance.now() - t0);
    }
    const store = await RedisStateStore.connect(d.redis.url, { log: () => undefined });
    const byKind: Record<string, number> = {};
    try {
      for (const kind of ['replicas/', 'journal/', 'quota/', 'grants/', 'answers/', 'oauth/', 'hosted/']) byKind[kind] = await store.memoryUsage(kind);
    } finally {
      await store.close();
    }
    const total = Object.values(byKind).reduce((a, b) => a + b, 0);
    report({
      section: `hosted (3 instances, ${USERS} users x ${CALLS} calls)`,
      calls: latencies.length,
      errors,
      'calls/s': Math.round(latencies.length / (wall / 1000)),
      p50: ms(median(latencies)),
      p99: ms(percentile(latencies, 99)),
      'upstream requests per user': (upstream / USERS).toFixed(1),
      'one user alone p50': ms(median(alone)),
      'sign-in p50': ms(median(signInTimes)),
      'Redis memory per user': kb(total / USERS),
      'of which copies': kb(byKind['replicas/']! / USERS),
      'of which OAuth records': kb(byKind['oauth/']! / USERS),
      'load average (1 min)': loadavg()[0]!.toFixed(1),
    });
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await d.close();
  }
}

export const hostedSection: BenchSection = {
  name: 'hosted',
  title: 'Hosted mode',
  about:
    'Three instances behind a round-robin proxy, one redis-server, 20 sandbox users signed in through the full MCP authorization flow, 50 calls each: calls/s, p50/p99, upstream requests per user and Redis memory per user.',
  run: (r) => hostedBench((row) => r.row(row)),
};
