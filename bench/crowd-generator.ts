/**
 * The crowd's load generator as seen from the bench: `size` child processes running
 * bench/crowd-worker.mjs, the users dealt out among them. `fresh` is cold (its clients' code not
 * yet compiled hot); after one crowd it is warmed, and the next crowd can run on it.
 */
import { type ChildProcess, fork } from 'node:child_process';

export interface CrowdUser {
  token: string;
  calls: [string, Record<string, unknown>][];
}

export interface CrowdResult {
  latencies: number[];
  first: number[];
  errors: string[];
  /** CPU of the generator's processes over the crowd, in ms. */
  cpuMs: number;
  /** [user, call, tool, start (ms into the crowd), latency ms] for every call. */
  trace: [number, number, string, number, number][];
  wallMs: number;
}

interface Done {
  type: 'done';
  latencies: number[];
  first: number[];
  errors: string[];
  cpuMicros: number;
  startedAt: number;
  trace: [number, number, string, number, number][];
}

export class CrowdGenerator {
  /** Crowds run on it so far: 0 is cold. */
  crowds = 0;
  private constructor(private readonly procs: ChildProcess[]) {}

  /** `size` fresh processes (plain node: no loader of this process's is inherited). */
  static fresh(size: number): CrowdGenerator {
    const worker = new URL('./crowd-worker.mjs', import.meta.url);
    return new CrowdGenerator(Array.from({ length: size }, () => fork(worker, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })));
  }

  private next<T>(proc: ChildProcess, type: string): Promise<T> {
    return new Promise((resolve, reject) => {
      // A process that dies answers nothing: the bench stops with why rather than waiting for ever.
      const exited = (code: number | null) => reject(new Error(`crowd generator: a process exited (${code}) before answering ${type}`));
      const on = (m: { type: string; error?: string }) => {
        if (m.type !== type && m.type !== 'failed') return;
        proc.off('message', on);
        proc.off('exit', exited);
        if (m.type === 'failed') reject(new Error(`crowd generator: ${m.error}`));
        else resolve(m as T);
      };
      proc.on('message', on);
      proc.once('exit', exited);
    });
  }

  /** Every user's client connected to `mcpUrl` (users dealt out in turn: user u to process u mod size). */
  async connect(mcpUrl: string, users: CrowdUser[]): Promise<void> {
    await Promise.all(
      this.procs.map((proc, p) => {
        const answered = this.next(proc, 'connected');
        proc.send({ type: 'connect', mcpUrl, users: users.filter((_, u) => u % this.procs.length === p) });
        return answered;
      }),
    );
  }

  /** All users at once; the user numbers in the trace are those of `connect`. */
  async go(): Promise<CrowdResult> {
    const t0 = performance.now();
    const start = Date.now();
    const done = await Promise.all(
      this.procs.map((proc) => {
        const answered = this.next<Done>(proc, 'done');
        proc.send({ type: 'go' });
        return answered;
      }),
    );
    const wallMs = performance.now() - t0;
    this.crowds += 1;
    const size = this.procs.length;
    return {
      latencies: done.flatMap((d) => d.latencies),
      first: done.flatMap((d) => d.first),
      errors: done.flatMap((d) => d.errors),
      cpuMs: done.reduce((s, d) => s + d.cpuMicros / 1000, 0),
      trace: done.flatMap((d, p) =>
        d.trace.map(([u, i, name, at, took]) => [u * size + p, i, name, at + d.startedAt - start, took] as CrowdResult['trace'][number]),
      ),
      wallMs,
    };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.procs.map(
        (proc) =>
          new Promise<void>((resolve) => {
            if (proc.exitCode !== null) return resolve();
            proc.once('exit', () => resolve());
            proc.send({ type: 'exit' });
          }),
      ),
    );
  }
}
