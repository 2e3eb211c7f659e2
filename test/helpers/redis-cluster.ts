/**
 * A real Redis Cluster of three masters for one test file: three `redis-server --cluster-enabled
 * yes` on free loopback ports in a temp directory, joined by `redis-cli --cluster create`, each
 * node's data in an append-only file written at every write and its nodes.conf there too (so a
 * stopped master started again on its port rejoins with its slots and its keys). `cluster-require-full-coverage no`: with one master down, the others keep
 * serving their slots, as a deployment should set it. Files that use it are tagged "redis".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { freePort, redisAvailable } from './redis.js';
import { killAtExit } from './own-session.js';
import { missingMessage } from './services.js';

export interface RunningCluster {
  /** redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 */
  url: string;
  ports: number[];
  /** The masters' process ids. */
  pids(): number[];
  /** The port of the master that holds `redisKey`'s slot now. */
  masterOf(redisKey: string): Promise<number>;
  /** Kills the master on `port` (SIGKILL: nothing said to anyone). */
  stopNode(port: number): Promise<void>;
  /** Starts it again on its port with its nodes.conf, and waits for the cluster to be whole. */
  startNode(port: number): Promise<void>;
  stop(): Promise<void>;
}

function startNode(dir: string, port: number, ownSession: boolean): Promise<ChildProcess | undefined> {
  const proc = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      '2000',
      '--cluster-require-full-coverage',
      'no',
      // Kept on disk at every write, so a master killed and started again comes back with its data.
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--appenddirname',
      `appendonly-${port}`,
      '--save',
      '',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: ownSession },
  );
  if (ownSession) killAtExit(proc);
  let out = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 10_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

async function clusterInfo(port: number): Promise<string> {
  const r = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8', timeout: 5_000 });
  return r.stdout ?? '';
}

/** Waits until every node says cluster_state:ok and sees all 16384 slots served. */
async function whole(ports: number[]): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const infos = await Promise.all(ports.map(clusterInfo));
    if (infos.every((i) => /cluster_state:ok/.test(i) && /cluster_slots_ok:16384/.test(i))) return;
    if (Date.now() > until) throw new Error(`the Redis Cluster did not become whole: ${infos.join(' | ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `ownSession`: each master in a session of its own, as each is a container in compose.yaml (own-session.ts: the benches' crowd). */
export async function startRedisCluster(opts: { ownSession?: boolean } = {}): Promise<RunningCluster> {
  const ownSession = opts.ownSession === true;
  if (!redisAvailable()) throw new Error(`redis-server is not installed: ${missingMessage('redis')}`);
  if (spawnSync('redis-cli', ['--version']).status !== 0) throw new Error(`redis-cli is not installed: ${missingMessage('redis')}`);
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-cluster-'));
  const procs = new Map<number, ChildProcess>();
  const ports: number[] = [];
  for (let attempt = 0; ports.length < 3 && attempt < 15; attempt++) {
    const port = await freePort();
    if (ports.includes(port)) continue;
    const proc = await startNode(dir, port, ownSession);
    if (!proc) continue; // taken meanwhile
    procs.set(port, proc);
    ports.push(port);
  }
  const kill = async (port: number) => {
    const proc = procs.get(port);
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGKILL');
    await exited;
  };
  const stop = async () => {
    await Promise.all([...procs.keys()].map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (ports.length < 3) throw new Error('could not start three redis-server nodes on free ports');
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await whole(ports);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    pids: () => ports.map((p) => procs.get(p)?.pid).filter((pid): pid is number => pid !== undefined),
    async masterOf(redisKey) {
      const alive = ports.find((p) => procs.get(p)?.exitCode === null)!;
      const client = createClient({ url: `redis://127.0.0.1:${alive}` });
      await client.connect();
      try {
        const slot = Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', redisKey]));
        const shards = (await client.sendCommand(['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
        const owner = shards.find(([from, to]) => slot >= from && slot <= to);
        if (!owner) throw new Error(`no master holds slot ${slot}`);
        return Number(owner[2][1]);
      } finally {
        await client.close();
      }
    },
    stopNode: kill,
    async startNode(port) {
      const proc = await startNode(dir, port, ownSession);
      if (!proc) throw new Error(`redis-server did not start again on port ${port}`);
      procs.set(port, proc);
      await whole(ports);
    },
    stop,
  };
}
