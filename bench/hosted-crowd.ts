/**
 * The crowd as it arrives (issue 61 item 3): 100 users x 20 calls at once on three instances that
 * have just come up. Each run has a deployment of its own (the sandbox, Redis or a Redis Cluster of
 * three masters, three instances); the users sign in and their clients connect, then the three
 * instances are restarted (as a rolling deploy or a restart before a morning rush leaves them:
 * tokens and saved copies in Redis, nothing in the instances' memory), and the crowd starts once
 * every instance answers /readyz 200, as a balancer would send it. The load generator's clients
 * run in child processes of their own (bench/crowd-worker.mjs); "cold" is a fresh generator,
 * "warmed" one that has just run a crowd. Three runs of each, per store and per balancer (round
 * robin, then the fewest requests under way, which docs/hosted.md advises): p50, p99 and max of each.
 * Each instance, each Redis server and the sandbox (YNAB's stand-in, a service apart) runs in a
 * session of its own, so that where the kernel shares the cores by session (autogroup) each has a
 * share of its own, as each container of compose.yaml does (test/helpers/own-session.ts); the
 * clients' side (the load generator and the balancer) stays in the bench's. BENCH_CROWD_SESSIONS=shared
 * runs them all in the bench's session.
 */
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { type Balance, MemoryOAuthProvider, signIn, startDeployment, type Deployment } from '../test/helpers/hosted.js';
import { cpuShares } from '../test/helpers/own-session.js';
import { machineReference } from './cold-start.js';
import { CrowdGenerator, type CrowdResult, type CrowdUser } from './crowd-generator.js';
import type { CrowdMeasured } from './hosted-capacity.js';
import { callOf, instanceArgs, instanceEnv, placesAtRest, redisMemoryPerUser, riseOf, sampleSum, scrape } from './hosted-deploy.js';
import type { Reporter, Row } from './section.js';
import { median, ms, percentile } from './stats.js';

type Store = 'single' | 'cluster';
const USERS = 100;
const CALLS = 20;
/** Issue 45 item 1, held by issue 61 item 3 in every crowd-only run. */
export const CROWD_P99_GOAL_MS = 1_000;

const storeName = (s: Store) => (s === 'single' ? 'one Redis' : 'Redis Cluster (3 masters)');
/**
 * The balancers the crowd is run behind (BENCH_CROWD_BALANCE, default both, in this order): round
 * robin, on which the goal has been measured since issue 45, and least outstanding requests (each
 * request to the instance with the fewest outstanding, test/helpers/hosted.ts), which docs/hosted.md
 * advises for a deployment: an instance that falls behind is sent less.
 */
const balances = (): Balance[] => envChoices('BENCH_CROWD_BALANCE', ['round-robin', 'least-outstanding'], 'round-robin,least-outstanding');
const balanced = (b: Balance) => (b === 'round-robin' ? '' : `, balancer ${b}`);
/**
 * Where the deployment's servers run (BENCH_CROWD_SESSIONS, default own): each instance and Redis
 * server in a session of its own, a share of the cores each as in compose.yaml; or, `shared`, all
 * in the bench's session as every run before 2026-11-28 (a share per busy thread, beside the
 * generator and the balancer).
 */
type Sessions = 'own' | 'shared';
const sessionsList = (): Sessions[] => envChoices('BENCH_CROWD_SESSIONS', ['own', 'shared'], 'own');
const sessionsName = (v: Sessions) => (v === 'own' ? '' : ', one session');
/**
 * BENCH_CROWD_BEFORE=<users>x<calls>, a diagnostic: after the restart, the first <users> users make
 * their first <calls> calls (a crowd as the measured one, through the same generator and balancer)
 * before the crowd measured, which then finds instances that have served that much (their code
 * compiled by it, those users seen) and a generator warmed by it. What a restarted instance's first
 * crowd costs is the difference from the runs without it (bench/RESULTS.md, hosted history).
 */
export function crowdBefore(value = process.env.BENCH_CROWD_BEFORE): { users: number; calls: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^(\d+)x(\d+)$/.exec(value);
  const users = Number(m?.[1]);
  const calls = Number(m?.[2]);
  if (!m || users < 1 || users > USERS || calls < 1 || calls > CALLS)
    throw new Error(`BENCH_CROWD_BEFORE=${JSON.stringify(value)} is not <users>x<calls> with 1-${USERS} users and 1-${CALLS} calls (e.g. 100x20)`);
  return { users, calls };
}
/**
 * BENCH_CROWD_ROLL=<n> (1-3): a rolling restart instead of all three at once. The instances are not
 * restarted before the crowd before (BENCH_CROWD_BEFORE, if any); after it, the first <n> are, one
 * at a time, each once the one before answers /readyz 200, as a rolling deploy does; then the crowd.
 */
export function crowdRoll(value = process.env.BENCH_CROWD_ROLL): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[1-3]$/.test(value)) throw new Error(`BENCH_CROWD_ROLL=${JSON.stringify(value)} is not how many of the 3 instances to restart one at a time (1-3)`);
  return Number(value);
}
const beforeName = () => {
  const b = crowdBefore();
  const roll = crowdRoll();
  return `${b ? `, after a crowd of ${b.users} users x ${b.calls} calls` : ''}${roll ? `, ${roll} of 3 restarted one at a time` : ''}`;
};
/** A run's deployment in words: its store, balancer (unless round robin), sessions (unless their own), any crowd before and rolling restart. */
const deploymentName = (store: Store, balance: Balance, sessions: Sessions) =>
  `${storeName(store)}${balanced(balance)}${sessionsName(sessions)}${beforeName()}`;
const envList = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** `name`'s comma-separated values (or `fallback`'s), each one of `allowed`; any other refused, naming the variable. */
function envChoices<T extends string>(name: string, allowed: readonly T[], fallback: string): T[] {
  return envList(name, fallback).map((v) => {
    if (!(allowed as readonly string[]).includes(v)) throw new Error(`${name}=${JSON.stringify(v)} is not ${allowed.join(' or ')}`);
    return v as T;
  });
}

/** GET /readyz until it answers 200 (every 20 ms, as a balancer's health check would, only faster). */
async function ready(url: string): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    if (Date.now() > until) throw new Error(`${url}/readyz: not ready within 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every instance stopped at once and started again; the ms until the slowest answered /readyz 200. */
async function restart(d: Deployment): Promise<number> {
  const n = d.instances.length;
  for (let i = 0; i < n; i++) await d.kill(i);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await d.start(i);
      await ready(d.instances[i]!.url);
    }),
  );
  return performance.now() - t0;
}

/** The first `n` instances restarted one at a time, each once the one before is ready: ms from the first's stop to the last's /readyz 200. */
async function rollingRestart(d: Deployment, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await d.kill(i);
    await d.start(i);
    await ready(d.instances[i]!.url);
  }
  return performance.now() - t0;
}

/** The users signed in (the full OAuth flow) and their crowd's calls, on a deployment. */
async function signInAll(d: Deployment): Promise<CrowdUser[]> {
  const people = d.sandbox.announcement().users;
  const users: CrowdUser[] = [];
  for (let u = 0; u < USERS; u++) {
    const c = await signIn(d.mcpUrl, new MemoryOAuthProvider(`crowd ${u}`), { login: people[u]!.email });
    const accounts = ((await c.call('list_accounts')) as any).structuredContent.accounts;
    const account = accounts.find((a: any) => a.type === 'checking' && !a.closed)?.id as string;
    users.push({ token: c.provider.tokens()!.access_token, calls: Array.from({ length: CALLS }, (_, i) => callOf(u * CALLS + i, i, account)) });
    await c.close();
  }
  return users;
}

interface CrowdRun {
  row: Row;
  measured: CrowdMeasured;
  p99: number;
  errors: number;
}

function why(result: CrowdResult): void {
  const counts = new Map<string, number>();
  for (const e of result.errors) counts.set(e, (counts.get(e) ?? 0) + 1);
  for (const [text, n] of counts) process.stderr.write(`hosted crowd: ${n} x ${text}\n`);
}

async function runCrowd(store: Store, balance: Balance, sessions: Sessions, generator: CrowdGenerator, run: number): Promise<CrowdRun> {
  const warmth = generator.crowds ? 'warmed' : 'cold';
  // Before the run's deployment starts (the last one's is gone): the machine as this run found it.
  const machine = await machineReference();
  const d = await startDeployment({
    instances: 3,
    redis: store,
    sandbox: { users: USERS, rateLimit: 100_000 },
    sandboxProcess: true,
    directUpstream: true,
    balance,
    ownSessions: sessions === 'own',
    args: instanceArgs(),
    env: instanceEnv(),
  });
  try {
    const users = await signInAll(d);
    const earlier = crowdBefore();
    // With a crowd before, the clients connect after it (its own clients are closed at its end).
    if (!earlier) await generator.connect(d.mcpUrl, users);
    // BENCH_CROWD_RESTART=0: the crowd on the instances the users signed in on (as before issue 61).
    const roll = crowdRoll();
    let readyMs = process.env.BENCH_CROWD_RESTART === '0' || roll ? 0 : await restart(d);
    if (earlier) {
      await generator.connect(
        d.mcpUrl,
        users.slice(0, earlier.users).map((u) => ({ ...u, calls: u.calls.slice(0, earlier.calls) })),
      );
      await generator.go();
      // Its clients were closed: every user's connects again (initialize, to the restarted instances).
      await generator.connect(d.mcpUrl, users);
    }
    if (roll) readyMs = await rollingRestart(d, roll);
    const before = await scrape(d);
    const balancerCpu0 = process.cpuUsage();
    const result = await generator.go();
    const balancerCpu = process.cpuUsage(balancerCpu0);
    why(result);
    if (process.env.BENCH_HOSTED_TRACE)
      writeFileSync(`${process.env.BENCH_HOSTED_TRACE}-${store}-${balance}-${sessions}-${run}-${warmth}.json`, JSON.stringify(result.trace));
    // BENCH_HOSTED_LOGS=<prefix>: each restarted instance's log (its warm-up's line; with --log-format json, a line per request).
    if (process.env.BENCH_HOSTED_LOGS)
      d.instances.forEach((i, n) =>
        writeFileSync(`${process.env.BENCH_HOSTED_LOGS}-${store}-${balance}-${sessions}-${run}-${warmth}-${n}.log`, i!.proc.stderr),
      );
    const after = await scrape(d);
    const rise = riseOf(before, after);
    const { latencies, first } = result;
    const cpu = rise('ynab_mcp_process_cpu_seconds_total');
    const caughtUp = (via: string) => rise('ynab_mcp_replica_catch_ups_total', { via });
    const cacheBytes = after.map((f) => sampleSum(f, 'ynab_mcp_replica_cache_bytes'));
    const rssBytes = after.map((f) => sampleSum(f, 'ynab_mcp_process_resident_memory_bytes'));
    const redis = await redisMemoryPerUser(d, USERS);
    const callsPerSecond = latencies.length / (result.wallMs / 1000);
    const p99 = percentile(latencies, 99);
    const measured: CrowdMeasured = {
      users: USERS,
      callsPerUser: CALLS,
      redis: store,
      calls: latencies.length,
      callsPerSecond,
      instanceCpuSeconds: cpu,
      upstream: rise('ynab_mcp_upstream_requests_total'),
      cacheBytes,
      rssBytes,
      redisBytes: redis.total,
    };
    const row: Row = {
      run: `${USERS} users x ${CALLS} calls, ${deploymentName(store, balance, sessions)}, run ${run}, generator ${warmth}`,
      calls: latencies.length,
      errors: result.errors.length,
      'calls/s': Math.round(callsPerSecond),
      p50: ms(median(latencies)),
      p99: ms(p99),
      max: ms(Math.max(...latencies)),
      "each user's first call p50 / p99": `${ms(median(first))} / ${ms(percentile(first, 99))}`,
      'instances ready after (restart to /readyz 200)': ms(readyMs),
      'share of the cores (instances, Redis)': cpuShares([...d.instances.map((i) => i!.proc.child.pid!), ...d.redis.pids()]),
      'instance CPU per call': ms((cpu * 1000) / latencies.length),
      'generator CPU per call': ms(result.cpuMs / latencies.length),
      'balancer CPU per call': ms((balancerCpu.user + balancerCpu.system) / 1000 / latencies.length),
      'caught up: changes / copy / request': `${caughtUp('changes')} / ${caughtUp('copy')} / ${caughtUp('request')}`,
      'places held at rest (each instance)': placesAtRest(after),
      'instance memory (RSS, max)': `${Math.round(Math.max(...rssBytes) / 1024 / 1024)} MB`,
      'Redis memory per user (all keys)': redis.row['Redis memory per user (all keys)']!,
      'load average (1 min)': loadavg()[0]!.toFixed(1),
      'machine reference (minimal SDK server cold start, p50 of 5)': ms(machine),
    };
    return { row, measured, p99, errors: result.errors.length };
  } finally {
    // With BENCH_HOSTED_NODE_OPTIONS (a CPU profile, say), the instances exit as they would (what they write at exit is kept).
    if (process.env.BENCH_HOSTED_NODE_OPTIONS) await Promise.all(d.instances.map((i) => i?.proc.stop('SIGTERM', 30_000)));
    await d.close();
  }
}

/**
 * The crowd-only runs: per store (BENCH_CROWD_STORES, default `single,cluster`), BENCH_CROWD_RUNS
 * (default 3) times a fresh generator (cold), then the same again (warmed; BENCH_CROWD_GENERATOR=cold
 * for the cold runs only). The generator's
 * processes: BENCH_CROWD_GENERATORS (default 2, the bench machine's cores). Returns each store's
 * first run's figures for the capacity model.
 */
export async function crowdBench(r: Reporter, server: string): Promise<CrowdMeasured[]> {
  const runs = Number(process.env.BENCH_CROWD_RUNS ?? 3);
  const size = Number(process.env.BENCH_CROWD_GENERATORS ?? 2);
  const measured: CrowdMeasured[] = [];
  // BENCH_CROWD_RUNS=0: none (e.g. BENCH_HOSTED_LOADS=100x20:single alone, the crowd as measured before issue 61).
  if (runs === 0) return measured;
  // Every setting checked before the first deployment starts: a bad one stops the bench naming it.
  crowdBefore();
  crowdRoll();
  const order = balances();
  const arrangements = sessionsList();
  for (const sessions of arrangements)
    for (const balance of order)
      for (const store of envList('BENCH_CROWD_STORES', 'single,cluster') as Store[]) {
        const p99s: Record<'cold' | 'warmed', number[]> = { cold: [], warmed: [] };
        let errors = 0;
        for (let run = 1; run <= runs; run++) {
          const generator = CrowdGenerator.fresh(size);
          try {
            for (const warmth of envList('BENCH_CROWD_GENERATOR', 'cold,warmed') as ('cold' | 'warmed')[]) {
              const done = await runCrowd(store, balance, sessions, generator, run);
              r.row({ ...done.row, server });
              // The capacity model's figures: each store's first run behind the first balancer, in the first arrangement.
              if (run === 1 && warmth === 'cold' && balance === order[0] && sessions === arrangements[0]) measured.push(done.measured);
              p99s[warmth].push(done.p99);
              errors += done.errors;
            }
          } finally {
            await generator.close();
          }
        }
        const all = [...p99s.cold, ...p99s.warmed];
        const list = (v: number[]) => v.map((p) => ms(p)).join(', ');
        r.figure(
          `crowd-only p99s at ${USERS} users x ${CALLS} calls, ${deploymentName(store, balance, sessions)}: generator cold / warmed`,
          `${list(p99s.cold)} / ${list(p99s.warmed)}`,
          {
            goal: `<= ${CROWD_P99_GOAL_MS} ms in every run, 0 errors`,
            met: all.every((p) => p <= CROWD_P99_GOAL_MS) && errors === 0,
          },
        );
        r.figure(`crowd-only errors, ${deploymentName(store, balance, sessions)}`, String(errors), { goal: '0', met: errors === 0 });
      }
  r.note(
    `The crowd as it arrives (issue 61 item 3): each row a deployment of its own; ${USERS} users sign in through the full flow and read their accounts, their clients connect, then the three instances are stopped and started again (tokens and saved copies stay in Redis; nothing stays in the instances' memory), and the crowd starts when every instance answers /readyz 200 ('instances ready after'). Every call of the crowd is thus the first an instance sees of its user or a later one. The users' clients run in ${size} child processes (bench/crowd-worker.mjs, plain Node): 'generator cold' is fresh processes, 'warmed' the same processes right after a crowd (their clients' code compiled hot). 'generator CPU per call' is those processes' CPU, 'balancer CPU per call' this process's (the proxy, nothing else during the crowd). Each instance and each Redis server runs in a session of its own, so that where the kernel shares the cores by session (Linux's autogroup) each has a share of its own, as each container of compose.yaml has ('share of the cores': 'a share each', or why not), and so does the sandbox, YNAB's stand-in, since 2026-11-29 07:00 UTC (before, it shared this process's share with the generator and the balancer, and the crowd's writes waited for it: their p50 at the client 487-627 ms, after 406-535 ms); BENCH_CROWD_SESSIONS=shared runs them in this process's session, as every run before 2026-11-28 09:00 UTC did. BENCH_CROWD_BEFORE=<users>x<calls>, a diagnostic, has that many users make that many of their calls after the restart, before the crowd measured (the generator is then warmed by it too; its rows and figures are named ', after a crowd of ...'); BENCH_CROWD_ROLL=<n> restarts <n> of the instances one at a time after it instead of all three before it, as a rolling deploy does ('instances ready after' is then the whole roll's). The runs are made behind a round-robin balancer, then behind one (BENCH_CROWD_BALANCE names either or both) that sends each request to the instance with the fewest outstanding (least outstanding requests: an ALB's least_outstanding_requests, nginx's least_conn, HAProxy's leastconn, Envoy's LEAST_REQUEST), as docs/hosted.md advises: under round robin an instance that falls behind in the first second keeps being sent a third of the calls and holds the slowest ones. The crowd is bound by the machine's CPU: each user has one call out at a time, so the mean latency is about the users over the calls per second (100 users at 200 calls/s: 0.5 s a call), and a machine that starts the minimal SDK server slower gives slower crowds, whatever the code: 'machine reference' is its cold start to the first tools/list (p50 of 5, measured just before the run's deployment starts, nothing else running; the footprint section measures the same).`,
  );
  return measured;
}
