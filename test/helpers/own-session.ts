/**
 * Children in a session of their own (spawn's `detached`: setsid), as each container of
 * compose.yaml, each pod or each service unit is a group of its own. Linux's scheduler groups the
 * processes of a session (autogroup, on by default on desktop and server kernels) and shares the
 * cores between groups first, then between a group's threads: so the three instances and three
 * Redis masters of a bench's deployment, started as children of the bench, shared one group with
 * the bench's load generator and balancer, each process weighed by its busy threads, and an
 * instance that lost that race in its first second stayed behind (bench/RESULTS.md, hosted). In a
 * session of its own each has a share of its own, as in the deployment compose.yaml describes.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ownSessions = new Set<ChildProcess>();
let hooked = false;

/** Signals that end this process without its 'exit' event (Ctrl-C, a timeout's or a runner's kill, a closed terminal). */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A child in a session of its own is not sent the terminal's Ctrl-C with this process: it is
 * killed when this process exits, and when a signal ends it. A signal ends a Node process without
 * its 'exit' event, so each of those signals is heard once: the children are killed, and then,
 * unless something else here listens for it (its listeners decide), the signal is raised again,
 * ending this process as it would have. (Before, a bench stopped by `timeout` left its Redis
 * servers running.)
 */
export function killAtExit(child: ChildProcess): void {
  ownSessions.add(child);
  child.once('exit', () => ownSessions.delete(child));
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const c of ownSessions) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ENDING_SIGNALS)
    process.once(signal, () => {
      killAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
}

/** Whether this kernel groups processes by session when sharing its cores (autogroup). */
export function autogroupOn(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** The scheduling group `pid` is in ("/autogroup-305"), or undefined where there is none to read. */
export function autogroupOf(pid: number | 'self'): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/autogroup`, 'utf8').split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * The cgroup this process's CPU is shared in ("/" at the root): the cpu controller's line of
 * /proc/self/cgroup (cgroup v1), or else the unified hierarchy's (v2); undefined where there is none.
 */
export function cpuCgroup(text?: string): string | undefined {
  let lines: string[];
  try {
    lines = (text ?? readFileSync('/proc/self/cgroup', 'utf8')).split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
  const parts = lines.map((l) => l.split(':'));
  const v1 = parts.find((p) => p[1]!.split(',').includes('cpu'));
  const v2 = parts.find((p) => p[0] === '0' && p[1] === '');
  return (v1 ?? v2)?.slice(2).join(':');
}

/**
 * What the processes `pids` get of the cores beside this one, in words for a bench's row: a share
 * each (each in a scheduling group of its own, none this process's), or one shared with this
 * process and why. Autogroup applies only to processes at the root of the cpu cgroups (inside a
 * container or a service's slice, that cgroup shares the cores instead, and its children with it).
 */
export function cpuShares(pids: number[]): string {
  if (!autogroupOn()) return 'one for all (no autogroup on this kernel)';
  const cgroup = cpuCgroup();
  if (cgroup !== undefined && cgroup !== '/') return `one for all (this process is in cgroup ${cgroup}, where autogroup does not apply)`;
  const mine = autogroupOf('self');
  const groups = pids.map(autogroupOf);
  if (groups.some((g) => g === undefined)) return 'unknown (no /proc/<pid>/autogroup)';
  const own = groups.every((g) => g !== mine) && new Set(groups).size === groups.length;
  return own ? 'a share each' : 'one for all (a session shared)';
}
