// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The round trips a write makes to Redis, counted on a real redis-server: each request's line of an
 * instance's log (--log-format json) carries `redis_round_trips` (waits on Redis: commands sent
 * while none of the same request awaited an answer; commands sent together, pipelined, count once)
 * and `redis_commands`, and /metrics sums the round trips (ynab_mcp_redis_round_trips_total). A
 * logged purchase (create_transactions, one transaction) and an update of it (update_transaction),
 * each on a budget whose copy the instance holds, written directly: their counts are pinned here,
 * so that a step added to the write path shows (the figures are in bench/RESULTS.md too).
 */
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { freePort } from '../helpers/redis.js';

/**
 * The pinned counts: at most these waits on Redis. Before the write path sent its undo record with
 * its listing, its ledger's settle without a read, and its cached answers' forgetting with its
 * records: a purchase 17-18 (23 commands), an update 9 (11). Before a create's records and rules
 * were read with the plan's copy, a write's undo record and read back were sent with its records,
 * the read back's sync read its feed with its lock and wrote it with the release, the alerts'
 * scan after it waited for its answer, and a create's slot in the ledger was taken with its
 * intent: a purchase 14 (21), an update 6 (10). Then a token this instance knows had its grant and
 * its user's written mark read with it (src/hosted/read-ahead.ts): an update 5 -> 3, a purchase
 * 8 -> 7 (19 commands). A store wrapper that drops withLock's holder (a sync's feed then read and
 * written in round trips of their own) shows here as a purchase of 8.
 */
const PURCHASE_TRIPS = 7;
const UPDATE_TRIPS = 3;

let d: Deployment;
let s: SignedIn;
let metricsPort = 0;

beforeAll(async () => {
  metricsPort = await freePort();
  d = await startDeployment({
    instances: 1,
    sandbox: { users: 1 },
    args: ['--log-format', 'json', '--metrics-port', String(metricsPort)],
    env: { YNAB_MCP_WRITES: 'direct' },
  });
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Redis Trips', 'http://127.0.0.1:7840/callback'), { login: d.sandbox.state.users[0]!.email });
});

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
});

/** The log's line of the last tools/call of `tool`, once there are more than `seen`. */
async function lineOf(tool: string, seen: number): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const lines = d.instances[0]!.proc.stderr.split('\n').filter((l) => l.startsWith('{'));
    const calls = lines.map((l) => JSON.parse(l) as Record<string, any>).filter((r) => r.msg === 'request' && r.rpc === 'tools/call' && r.tool === tool);
    if (calls.length > seen) return calls[calls.length - 1]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line of ${tool}`);
}

async function roundTrips(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const family = parsePrometheus(text).find((f) => f.name === 'ynab_mcp_redis_round_trips_total');
  if (!family) throw new Error('no ynab_mcp_redis_round_trips_total on /metrics');
  return family.metrics.reduce((n, m) => n + Number(m.value), 0);
}

describe("a write's round trips to Redis", () => {
  it('a logged purchase and an update of it: counted on their log lines and in /metrics, and no more than pinned', async () => {
    const account = (ok(await s.call('list_accounts')).accounts as any[]).find((a) => a.type === 'checking' && !a.closed)!;
    ok(await s.call('list_payees', { limit: 1 })); // the copy held, and every user's record read once
    const before = await roundTrips();
    const today = new Date().toISOString().slice(0, 10);
    const made = ok(
      await s.call('create_transactions', { transactions: [{ account_id: account.id, date: today, amount: -7.25, payee_name: 'Trips Cafe', memo: 'trips' }] }),
    );
    const purchase = await lineOf('create_transactions', 0);
    const id = (made.transactions ?? made.transaction_ids ?? [])[0]?.id ?? made.transaction_ids?.[0];
    expect(typeof id, JSON.stringify(made).slice(0, 400)).toBe('string');
    ok(await s.call('update_transaction', { transaction_id: id, memo: 'trips, updated' }));
    const update = await lineOf('update_transaction', 0);
    const after = await roundTrips();
    process.stderr.write(
      `redis round trips: purchase ${purchase.redis_round_trips}/${purchase.redis_commands}, update ${update.redis_round_trips}/${update.redis_commands}\n`,
    );

    for (const line of [purchase, update]) {
      expect(line.redis_round_trips).toBeGreaterThan(0);
      expect(line.redis_commands).toBeGreaterThanOrEqual(line.redis_round_trips);
    }
    expect(purchase.redis_round_trips).toBeLessThanOrEqual(PURCHASE_TRIPS);
    expect(update.redis_round_trips).toBeLessThanOrEqual(UPDATE_TRIPS);
    // /metrics counts them too (and whatever else ran meanwhile: the instance's background work).
    expect(after - before).toBeGreaterThanOrEqual(purchase.redis_round_trips + update.redis_round_trips);
  });
});
