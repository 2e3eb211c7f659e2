/**
 * A real redis-server for one test file: started on a free loopback port (freePort), with nothing
 * saved to disk, and killed by stop(). Files that use it are tagged "redis" (services.ts): without
 * redis-server they skip, or fail saying so when the run requires it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { killAtExit } from './own-session.js';
import { missingMessage } from './services.js';

export { freePort };

export interface RunningRedis {
  url: string;
  port: number;
  /** The server's process ids (one; a cluster's, one per master). */
  pids(): number[];
  stop(): Promise<void>;
}

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/**
 * A redis-server on a free port, or on `port` (to bring one back where it was); `ownSession`: in a
 * session of its own, as a container is (own-session.ts: the benches' crowd).
 */
export async function startRedis(port?: number, opts: { ownSession?: boolean } = {}): Promise<RunningRedis> {
  if (!redisAvailable()) throw new Error(`redis-server is not installed: ${missingMessage('redis')}`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const chosen = port ?? (await freePort());
    const proc: ChildProcess = spawn(
      'redis-server',
      ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: opts.ownSession === true,
      },
    );
    if (opts.ownSession) killAtExit(proc);
    let out = '';
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!ready) {
      proc.kill('SIGKILL');
      continue; // the port was taken meanwhile: try another
    }
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    return {
      url: `redis://127.0.0.1:${chosen}`,
      port: chosen,
      pids: () => [proc.pid!],
      async stop() {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
        await exited;
      },
    };
  }
  throw new Error('could not start redis-server on a free port');
}
