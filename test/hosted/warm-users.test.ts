// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * A restarted instance reads the recently active users' copies before /readyz says ready
 * (src/hosted/warm-users.ts, the warm-up's users step): three users sign in and read their
 * accounts, the instance is killed and started again, and once it is ready each user's first call
 * finds their copy held (ynab_mcp_replica_cache_total: hits only) and reads no copy or feed from
 * Redis (every command Redis received meanwhile, from MONITOR). With a time budget of 0 ms
 * (YNAB_MCP_WARM_USERS_MS) or a count (YNAB_MCP_WARM_USERS) the step stops there, as its log says;
 * a setting that is not a whole number stops the start, naming it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, startInstance, type Deployment, type Instance, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { freePort } from '../helpers/redis.js';

const USERS = 3;
let d: Deployment;
let users: SignedIn[] = [];
let metricsPort = 0;
const extra: Instance[] = [];

beforeAll(async () => {
  metricsPort = await freePort();
  // The deadline far off (YNAB_MCP_READY_WITHIN_MS): on a loaded machine an instance may listen late,
  // and the deadline would then cut the step these tests count; one test sets it past on purpose.
  d = await startDeployment({
    instances: 1,
    sandbox: { users: USERS },
    args: ['--metrics-port', String(metricsPort)],
    env: { YNAB_MCP_READY_WITHIN_MS: '60000' },
  });
  const people = d.sandbox.state.users;
  for (let u = 0; u < USERS; u++) {
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Warm ${u}`, 'http://127.0.0.1:7840/callback'), { login: people[u]!.email });
    ok(await s.call('list_accounts'));
    users.push(s);
  }
  await d.instances[0]!.proc.waitFor('stderr', /warmed up/, 30_000);
});

afterAll(async () => {
  await Promise.all(users.map((s) => s.close().catch(() => undefined)));
  users = [];
  await Promise.all(extra.map((i) => i.proc.stop()));
  await d?.close();
});

async function readyz(url: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${url} not ready in 30 s`);
}

async function cacheCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const family = parsePrometheus(text).find((f) => f.name === 'ynab_mcp_replica_cache_total');
  return Object.fromEntries((family?.metrics ?? []).map((m) => [m.labels?.result ?? '', Number(m.value)]));
}

/** Every command Redis receives while it runs (redis-cli MONITOR). */
function monitor(url: string): { proc: ChildProcess; lines: () => string[]; ready: Promise<void> } {
  const proc = spawn('redis-cli', ['-u', url, 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const ready = new Promise<void>((resolve) => proc.stdout!.on('data', (b: Buffer) => ((out += b.toString()), /^OK/m.test(out) && resolve())));
  return { proc, lines: () => out.split('\n'), ready };
}

/**
 * The warm-up's users step in an instance's log: how many users' copies it read (and, checked here,
 * no more of their months than copies).
 */
async function usersStep(i: Instance): Promise<number> {
  const { read } = await usersStepCounts(i);
  return read;
}

async function usersStepCounts(i: Instance): Promise<{ read: number; months: number }> {
  const line = await i.proc.waitFor('stderr', /ynab-mcp: warmed up \d+ ms after the process started \((.*)\); ready\n/, 30_000);
  const step = / users \d+ ms \((\d+) read, (\d+) with their months\),/.exec(line[1]!);
  expect(step, line[1]).not.toBeNull();
  expect(i.proc.stderr).not.toMatch(/warm-up's \w+ step failed/);
  const [read, months] = [Number(step![1]), Number(step![2])];
  expect(months).toBeLessThanOrEqual(read);
  return { read, months };
}

describe('a restarted instance holds the recently active users’ copies before it is ready', () => {
  it("each user's first call after the restart finds the copy held, and reads no copy or feed from Redis", async () => {
    await d.kill(0);
    await d.start(0);
    await readyz(d.instances[0]!.url);
    // With the deadline a minute away, every copy is read, and then its months (warm-months.test.ts).
    expect(await usersStepCounts(d.instances[0]!)).toEqual({ read: USERS, months: USERS });

    const watch = monitor(d.redis.url);
    await watch.ready;
    const before = await cacheCounts();
    for (const s of users) ok(await s.call('list_accounts'));
    const after = await cacheCounts();
    watch.proc.kill();

    expect((after.hit ?? 0) - (before.hit ?? 0)).toBe(USERS);
    expect((after.saved ?? 0) - (before.saved ?? 0)).toBe(0);
    expect((after.miss ?? 0) - (before.miss ?? 0)).toBe(0);
    const reads = watch.lines().filter((l) => /"GET" "[^"]*replicas\/[^"]*\.(replica|feed)"/.test(l));
    expect(reads).toEqual([]);
    expect(watch.lines().filter((l) => /"GET"/.test(l)).length).toBeGreaterThan(0); // MONITOR saw the calls' other reads
  });

  it('stops at its time budget (YNAB_MCP_WARM_USERS_MS=0: none read) and at its count (YNAB_MCP_WARM_USERS=2)', async () => {
    const none = await startInstance({ ...d.env, args: [], env: { ...d.env.env, YNAB_MCP_WARM_USERS_MS: '0' } });
    extra.push(none);
    expect(await usersStep(none)).toBe(0);
    const two = await startInstance({ ...d.env, args: [], env: { ...d.env.env, YNAB_MCP_WARM_USERS: '2' } });
    extra.push(two);
    expect(await usersStep(two)).toBe(2);
  });

  it('with the deadline past (YNAB_MCP_READY_WITHIN_MS=1) the users step is given 0 ms and says what it left; /readyz still turns 200', async () => {
    const late = await startInstance({ ...d.env, args: [], env: { ...d.env.env, YNAB_MCP_READY_WITHIN_MS: '1' } });
    extra.push(late);
    await readyz(late.url);
    expect(await usersStep(late)).toBe(0);
    const line = await late.proc.waitFor('stderr', /ynab-mcp: warm-up deadline (\d+) ms after the process started; (.*)\n/, 10_000);
    expect(line[1]).toBe('1');
    // Each step given what remained (nothing), the users not read named as left to their first calls.
    expect(line[2]).toMatch(
      new RegExp(`^answers given 0 of \\d+ ms, users 0 of 3000 ms \\(0 read, ${USERS} left to their first calls\\), mcp 0 of \\d+ ms: cut short$`),
    );
  });

  it('a setting that is not a whole number stops the start, naming the variable', async () => {
    await expect(startInstance({ ...d.env, args: [], env: { ...d.env.env, YNAB_MCP_WARM_USERS_MS: 'a second' } })).rejects.toThrow(
      /YNAB_MCP_WARM_USERS_MS="a second" is not a whole number from 0 to 60000/,
    );
    await expect(startInstance({ ...d.env, args: [], env: { ...d.env.env, YNAB_MCP_READY_WITHIN_MS: '3 s' } })).rejects.toThrow(
      /YNAB_MCP_READY_WITHIN_MS="3 s" is not a whole number from 0 to 600000/,
    );
  });
});
