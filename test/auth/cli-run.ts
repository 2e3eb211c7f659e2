/**
 * Runs the real CLI (node --import tsx src/cli.ts ...) for the credential tests, with its own
 * config and state directories and YNAB_MCP_KEYCHAIN=off (unless a test asks for the keychain),
 * optional stdin, and every byte of stdout and stderr kept so tests can search them for secrets.
 * killAll() ends whatever is still running (afterEach, also after failures).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the first match of `re` in stderr; rejects on exit or after `ms`. */
  waitForStderr(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface CliEnv {
  configDir: string;
  stateDir: string;
  /** Extra variables; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  stdin?: string;
}

const running = new Set<ChildProcess>();

/** Every stdout and stderr byte of every run, for the "no secret is ever printed" checks. */
export const allOutput: string[] = [];

export function cliEnv(opts: CliEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    YNAB_MCP_CONFIG_DIR: opts.configDir,
    YNAB_MCP_STATE_DIR: opts.stateDir,
    YNAB_MCP_KEYCHAIN: 'off',
  };
  // A developer's own token or API must not leak into a test.
  delete env.YNAB_ACCESS_TOKEN;
  delete env.YNAB_BASE_URL;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function startCli(args: string[], opts: CliEnv): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: cliEnv(opts),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    allOutput.push(c);
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
    allOutput.push(c);
    for (const w of waiters) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      for (const w of waiters) w();
      resolve({ code, signal });
    });
  });
  child.stdin!.on('error', () => {}); // the CLI may exit before reading stdin
  if (opts.stdin !== undefined) child.stdin!.write(opts.stdin);
  child.stdin!.end();
  let closed = false;
  void exited.then(() => (closed = true));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForStderr(re, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no ${re} on stderr within ${ms} ms; stderr: ${stderr}`)), ms);
        const check = () => {
          const m = re.exec(stderr);
          if (m) return done(null, m);
          if (closed || child.exitCode !== null) done(new Error(`the CLI exited before printing ${re}; stderr: ${stderr}`));
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
  };
}

/** Runs the CLI to its exit. */
export async function runCli(args: string[], opts: CliEnv, timeoutMs = 60_000) {
  const run = startCli(args, opts);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const exit = await run.exited;
  clearTimeout(timer);
  return { ...exit, stdout: run.stdout, stderr: run.stderr };
}

export async function killAll(): Promise<void> {
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
