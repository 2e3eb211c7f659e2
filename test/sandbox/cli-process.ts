/**
 * Runs the real `ynab-mcp` CLI as a child process (node --import tsx src/cli.ts ...), collects
 * its stdout and stderr, and makes sure no child outlives the test file (`killAllCli`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Announcement {
  base_url: string;
  app_url: string;
  access_token: string;
  read_only_token: string;
  oauth_client_id: string;
  oauth_client_secret: string;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout / stderr so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the parsed first stdout line; rejects if the process exits first. */
  announcement: Promise<Announcement>;
  exited: Promise<Exit>;
  /** Sends a signal and waits for the exit (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

const running = new Set<ChildProcess>();

export function startCli(args: string[], timeoutMs = 30_000): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<Exit>((resolve) => {
    // 'close' rather than 'exit': all of stdout and stderr has been read by then.
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  const announcement = new Promise<Announcement>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no announcement within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const nl = stdout.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(stdout.slice(0, nl)) as Announcement);
        } catch (e) {
          reject(new Error(`the first stdout line is not JSON: ${stdout.slice(0, nl)} (${(e as Error).message})`));
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited (code ${code}, signal ${signal}) before announcing; stderr: ${stderr}`));
    });
  });
  // Unhandled rejections are the caller's choice; do not crash the test worker on them.
  announcement.catch(() => {});
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    announcement,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Runs the CLI to its exit (for invocations that must fail at once). */
export async function runCli(args: string[], timeoutMs = 30_000): Promise<Exit & { stdout: string; stderr: string }> {
  const p = startCli(args, timeoutMs);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { ...exit, stdout: p.stdout, stderr: p.stderr };
}

/** Kills every child still running (afterAll / afterEach, also after failures). */
export async function killAllCli(): Promise<void> {
  const waits = [...running].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}
