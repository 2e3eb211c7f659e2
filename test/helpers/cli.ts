/**
 * Runs the real `ynab-mcp` CLI as a child process (the run's transpiled copy of src/, else
 * node --import tsx src/cli.ts: cliArgs) from the repository root, keeps every byte of its stdout
 * and stderr, and tracks every child so that killAllCli() can make sure none outlives a test file
 * (also after a failure).
 * test/sandbox/cli-process.ts and test/auth/cli-run.ts add what their suites need on top.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAtExit } from './own-session.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Set by the globalSetup cli-build.ts: src/cli.ts transpiled once for the run, to start without tsx. */
export const CLI_SOURCE_ENV = 'YNAB_MCP_TEST_CLI';

/**
 * The node arguments that start the CLI from the current sources: the run's transpiled copy when
 * there is one (cli-build.ts), else src/cli.ts through tsx. Either way, the code in src/ now.
 */
export function cliArgs(): string[] {
  const built = process.env[CLI_SOURCE_ENV];
  return built ? [built] : ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli.ts')];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type Stream = 'stdout' | 'stderr';

export interface CliOptions {
  /** Variables over this process's environment; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  stdin?: string;
  /** Sees every chunk of output as it arrives (e.g. to collect all output of a file). */
  onOutput?: (chunk: string, stream: Stream) => void;
  /**
   * The child in a session of its own, with a share of the cores of its own where the kernel
   * groups by session (own-session.ts): the benches' crowd (bench/hosted-crowd.ts).
   */
  ownSession?: boolean;
}

export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout / stderr so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves at 'close', so all of stdout and stderr has been read by then. */
  exited: Promise<Exit>;
  /** Resolves with the first match of `re` in `stream`; rejects if the process exits first or after `ms`. */
  waitFor(stream: Stream, re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends a signal and waits for the exit (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

const running = new Set<ChildProcess>();

/** This process's environment with `overrides` applied, and NODE_OPTIONS cleared (vitest's must not reach the child). */
export function childEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function startCli(args: string[], opts: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [...cliArgs(), ...args], {
    cwd: REPO_ROOT,
    env: childEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: opts.ownSession === true,
  });
  running.add(child);
  if (opts.ownSession) killAtExit(child);
  const out: Record<Stream, string> = { stdout: '', stderr: '' };
  let closed = false;
  // Pending waitFor() checks, run again on every chunk and at the exit.
  const waiters = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8').on('data', (chunk: string) => {
      out[stream] += chunk;
      opts.onOutput?.(chunk, stream);
      for (const w of waiters) w();
    });
  }
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      closed = true;
      for (const w of waiters) w();
      resolve({ code, signal });
    });
  });
  child.stdin!.on('error', () => {}); // the CLI may exit before reading stdin
  if (opts.stdin !== undefined) child.stdin!.write(opts.stdin);
  child.stdin!.end();

  return {
    child,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    exited,
    waitFor(stream, re, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no ${re} on ${stream} within ${ms} ms; stderr: ${out.stderr}`)), ms);
        const check = () => {
          const m = re.exec(out[stream]);
          if (m) return done(null, m);
          // Only at 'close' is all output read; at 'exit' some may still be on its way.
          if (closed)
            done(new Error(`the CLI exited (code ${child.exitCode}, signal ${child.signalCode}) before printing ${re} on ${stream}; stderr: ${out.stderr}`));
        };
        const done = (err: Error | null, m?: RegExpMatchArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(m!);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Runs the CLI to its exit, killing it after `timeoutMs`. */
export async function runCli(args: string[], opts: CliOptions = {}, timeoutMs = 30_000): Promise<Exit & { stdout: string; stderr: string }> {
  const p = startCli(args, opts);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { ...exit, stdout: p.stdout, stderr: p.stderr };
}

/** Kills every child still running (afterAll / afterEach, also after failures). */
export async function killAllCli(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
