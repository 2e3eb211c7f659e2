// @module-tag redis (needs redis-server and redis-cli: skipped without them, see test/helpers/services.ts)
/**
 * The benches' crowd deployment (bench/hosted-crowd.ts): each instance, each Redis server and the
 * sandbox in a process of its own (YNAB's stand-in) in a session of its own, as each container of
 * compose.yaml is a group of its own, so that where the kernel shares its cores by session
 * (autogroup) each has a share of its own rather than one per busy thread beside the bench's
 * generator and balancer (test/helpers/own-session.ts). Asked of the processes themselves: their
 * session ids and scheduling groups from ps and /proc; and a child left behind by a process that
 * exits is killed with it.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { startDeployment, type Deployment } from '../helpers/hosted.js';
import { autogroupOf, autogroupOn, cpuCgroup, cpuShares } from '../helpers/own-session.js';
import { startRedisCluster, type RunningCluster } from '../helpers/redis-cluster.js';

/** The session a process belongs to (its leader's pid), as ps reads it. */
const sessionOf = (pid: number): number => Number(execFileSync('ps', ['-o', 'sid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
/** Running, as ps sees it: not gone, and not a zombie waiting for whoever adopted it to reap it. */
const alive = (pid: number): boolean => {
  const state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
  return state !== '' && !state.startsWith('Z');
};

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function deployment(ownSessions: boolean): Promise<{ d: Deployment; pids: number[] }> {
  const d = await startDeployment({ instances: 2, sandbox: { users: 1 }, ownSessions });
  closing.push(() => d.close());
  return { d, pids: [...d.instances.map((i) => i!.proc.child.pid!), ...d.redis.pids()] };
}

it('own sessions: each instance and the Redis server lead a session of their own, none this one', async () => {
  const { pids } = await deployment(true);
  expect(pids).toHaveLength(3);
  const mine = sessionOf(process.pid);
  for (const pid of pids) {
    expect(sessionOf(pid)).toBe(pid);
    expect(sessionOf(pid)).not.toBe(mine);
  }
});

it("own sessions: the sandbox in a process of its own (YNAB's stand-in) leads a session of its own too; by default it stays in this one", async () => {
  /** This process's child serving the sandbox (ps: parent and command line). */
  const sandboxPid = (): number => {
    const rows = execFileSync('ps', ['-o', 'pid=,ppid=,args=', '-e'], { encoding: 'utf8' }).split('\n');
    const mine = rows.map((r) => r.trim().split(/\s+/)).filter((c) => Number(c[1]) === process.pid && c.join(' ').includes('sandbox --port 0 --seed hosted'));
    expect(mine).toHaveLength(1);
    return Number(mine[0]![0]);
  };
  const own = await startDeployment({ instances: 1, sandbox: { users: 1 }, sandboxProcess: true, ownSessions: true });
  closing.push(() => own.close());
  const pid = sandboxPid();
  expect(sessionOf(pid)).toBe(pid);
  await closing.pop()!();
  const shared = await startDeployment({ instances: 1, sandbox: { users: 1 }, sandboxProcess: true });
  closing.push(() => shared.close());
  expect(sessionOf(sandboxPid())).toBe(sessionOf(process.pid));
});

it("own sessions: each of a cluster's masters leads a session of its own", async () => {
  const cluster: RunningCluster = await startRedisCluster({ ownSession: true });
  closing.push(() => cluster.stop());
  const pids = cluster.pids();
  expect(pids).toHaveLength(3);
  for (const pid of pids) expect(sessionOf(pid)).toBe(pid);
});

it("by default the instances and Redis stay in this process's session", async () => {
  const { pids } = await deployment(false);
  const mine = sessionOf(process.pid);
  for (const pid of pids) expect(sessionOf(pid)).toBe(mine);
});

// Autogroup shares the cores only at the root of the cpu cgroups (own-session.ts cpuShares).
it.skipIf(!autogroupOn() || (cpuCgroup() ?? '/') !== '/')(
  "with autogroup on (Linux), own sessions are scheduling groups of their own, and the bench's row says so",
  async () => {
    const own = await deployment(true);
    const groups = own.pids.map(autogroupOf);
    expect(new Set(groups).size).toBe(3);
    expect(groups).not.toContain(autogroupOf('self'));
    expect(cpuShares(own.pids)).toBe('a share each');
    const shared = await deployment(false);
    expect(shared.pids.map(autogroupOf)).toEqual([autogroupOf('self'), autogroupOf('self'), autogroupOf('self')]);
    expect(cpuShares(shared.pids)).toBe('one for all (a session shared)');
  },
);

it("reads the cgroup the cores are shared in: v1's cpu controller, else the unified hierarchy", () => {
  expect(cpuCgroup('9:name=systemd:/\n3:cpu,cpuacct:/docker/abc\n0::/\n')).toBe('/docker/abc');
  expect(cpuCgroup('1:cpu:/\n0::/user.slice\n')).toBe('/');
  expect(cpuCgroup('0::/system.slice/redis.service\n')).toBe('/system.slice/redis.service');
  expect(cpuCgroup('')).toBeUndefined();
});

it('a child in a session of its own dies with the process that started it', () => {
  // A process that starts a long-lived CLI child in its own session, prints its pid and exits.
  const script = [
    "import { startCli } from './test/helpers/cli.ts';",
    "const p = startCli(['sandbox', '--port', '0'], { ownSession: true });",
    "await p.waitFor('stdout', /^\\{.*\\}$/m, 60_000);",
    'console.log(p.child.pid);',
    'process.exit(0);',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 90_000,
  });
  const pid = Number(out.trim().split('\n').at(-1));
  expect(pid).toBeGreaterThan(0);
  // SIGKILL is sent at the exit; the child is gone within moments.
  const until = Date.now() + 5_000;
  while (alive(pid) && Date.now() < until) execFileSync('sleep', ['0.05']);
  const left = alive(pid);
  if (left) process.kill(pid, 'SIGKILL'); // not this test's to leave behind when it fails
  expect(left).toBe(false);
});

it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
  'a child in a session of its own dies when %s ends the process that started it, which still ends by it',
  async (signal) => {
    // A process that starts a long-lived CLI child in its own session, prints its pid and waits.
    const script = [
      "import { startCli } from './test/helpers/cli.ts';",
      "const p = startCli(['sandbox', '--port', '0'], { ownSession: true });",
      "await p.waitFor('stdout', /^\\{.*\\}$/m, 60_000);",
      "console.log('child', p.child.pid);",
      'setInterval(() => {}, 1_000);',
    ].join('\n');
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => parent.once('exit', (_code, sig) => resolve(sig)));
    let out = '';
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /child (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      void ended.then(() => reject(new Error(`the parent ended before its child started: ${out}`)));
    });
    parent.kill(signal);
    expect(await ended).toBe(signal);
    const until = Date.now() + 5_000;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const left = alive(pid);
    if (left) process.kill(pid, 'SIGKILL'); // not this test's to leave behind when it fails
    expect(left).toBe(false);
  },
  90_000,
);
