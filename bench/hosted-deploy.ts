/**
 * What the hosted benches (hosted.bench.ts, hosted-crowd.ts) share about a deployment under load:
 * the instances' metrics token and /metrics, Redis memory per user, the users' call mix, and the
 * server as built.
 */
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus, { type Family } from 'parse-prometheus-text-format';
import { RedisStateStore } from '../src/storage/redis-store.js';
import { CLI_SOURCE_ENV, REPO_ROOT } from '../test/helpers/cli.js';
import type { Deployment } from '../test/helpers/hosted.js';
import type { Row } from './section.js';
import { kb } from './stats.js';

const METRICS_TOKEN = `bench-metrics-${process.pid}-${Date.now()}`;

export function metricsTokenFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-')), 'metrics-token');
  writeFileSync(file, `${METRICS_TOKEN}\n`);
  chmodSync(file, 0o600);
  return file;
}

/**
 * The instances' flags for a bench deployment: the metrics token; registrations per address raised
 * past the bench's users (every client registers from this machine's one address; the default
 * limit, 20 an hour, stopped the bench's sign-ins); and BENCH_HOSTED_INSTANCE_ARGS (e.g.
 * `--concurrent-requests 0`, to measure a lever).
 */
export const instanceArgs = (): string[] => [
  '--metrics-token-file',
  metricsTokenFile(),
  '--registration-limit',
  '100000',
  ...(process.env.BENCH_HOSTED_INSTANCE_ARGS?.split(' ').filter(Boolean) ?? []),
];

/** BENCH_HOSTED_NODE_OPTIONS: the instances' NODE_OPTIONS (e.g. --require of a preload that writes a CPU profile at exit). */
export const instanceEnv = (): Record<string, string> | undefined =>
  process.env.BENCH_HOSTED_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_HOSTED_NODE_OPTIONS } : undefined;

/**
 * The call a user makes `n`-th: mostly questions, one write in 50 (BENCH_NO_WRITES=1: a question
 * instead, to measure what the writes cost the crowd).
 */
export function callOf(n: number, i: number, account: string): [string, Record<string, unknown>] {
  const today = new Date().toISOString().slice(0, 10);
  if (n % 50 === 7 && !process.env.BENCH_NO_WRITES)
    return ['create_transactions', { transactions: [{ account_id: account, date: today, amount: -1 - i / 100, payee_name: 'Bench', memo: `bench ${n}` }] }];
  const pick = n % 10;
  if (pick < 3) return ['list_transactions', { limit: 20 }];
  if (pick < 5) return ['list_accounts', {}];
  if (pick < 7) return ['get_month', { month: 'current', limit: 20 }];
  if (pick < 9) return ['list_categories', {}];
  return ['list_payees', { limit: 20 }];
}

/** Each instance's /metrics, parsed. */
export async function scrape(d: Deployment): Promise<Family[][]> {
  return Promise.all(
    d.instances.map(async (i) => {
      const res = await fetch(`${i!.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      return parsePrometheus(await res.text());
    }),
  );
}
/** Each instance's places in the loop still held once every call is answered: 0, or places lost (issue 61's stalls). */
export const placesAtRest = (instances: Family[][]): string => instances.map((f) => sampleSum(f, 'ynab_mcp_requests_in_loop')).join(' / ');

/** The sum of a family's samples that carry `labels` (all of them when none is given). */
export const sampleSum = (families: Family[], name: string, labels: Record<string, string> = {}) =>
  (families.find((f) => f.name === name)?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? 0), 0);

/** What a family's samples rose by between two scrapes, all instances together. */
export const riseOf =
  (before: Family[][], after: Family[][]) =>
  (name: string, labels: Record<string, string> = {}): number =>
    after.reduce((s, f, i) => s + sampleSum(f, name, labels) - sampleSum(before[i] ?? [], name, labels), 0);

/**
 * What each kind of key holds: a user's copy of a budget (`replicas/…/<budget>.replica`), the
 * feed of changes since it (`.feed`), the events' occurrence log of each budget read
 * (`events/…/<budget>.log`), the sign-in's OAuth records, the answers cache, and the rest (grants,
 * quota, aliases, session budget; the server's signing keys, shared by all users).
 */
function kindOf(key: string): string {
  if (key.startsWith('replicas/')) return key.endsWith('.feed') ? 'feeds' : key.endsWith('.replica') ? 'copies' : 'other';
  if (key.startsWith('events/')) return 'events logs';
  if (key.startsWith('oauth/')) return 'OAuth records';
  if (key.startsWith('answers/')) return 'answers cache';
  return 'other';
}

/** Redis memory per user, every key counted (MEMORY USAGE: the value, the key and the allocator's rounding). */
export async function redisMemoryPerUser(d: Deployment, users: number): Promise<{ row: Row; total: number }> {
  const store = await RedisStateStore.connect(d.redis.url, { log: () => undefined });
  const byKind: Record<string, number> = { copies: 0, feeds: 0, 'events logs': 0, 'OAuth records': 0, 'answers cache': 0, other: 0 };
  try {
    for (const key of await store.list('')) byKind[kindOf(key)]! += await store.keyMemory(key);
  } finally {
    await store.close();
  }
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  const row = {
    'Redis memory per user (all keys)': kb(total / users),
    'of which copies / feeds / events logs / OAuth / answers / other': Object.values(byKind)
      .map((v) => kb(v / users))
      .join(' / '),
  };
  return { row, total };
}

/**
 * The instances run the server as built (`npm run bench` builds it first), as a deployment runs
 * it. Run from src/ through tsx, every dynamic import() of a tool call went through tsx's loader
 * thread: about a tenth of the instances' CPU in the crowd's first seconds (2026-11-24).
 */
export function runBuilt(): string {
  const built = join(REPO_ROOT, 'dist', 'cli.js');
  if (process.env[CLI_SOURCE_ENV] || !existsSync(built)) return 'src (tsx)';
  process.env[CLI_SOURCE_ENV] = built;
  return 'dist';
}
