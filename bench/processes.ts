/**
 * Benchmarks that measure real processes: the built CLI (dist/cli.js) started as a host starts it,
 * spoken to over stdio with bare JSON-RPC lines (so no client library's own start-up is counted),
 * its resident memory read from the OS, and a sandbox in its own process (so its work is not
 * counted in the server's memory or time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run "npm run build" first (npm run bench does)');
}

/** A child's resident memory now and at its peak, in bytes (Linux: /proc; elsewhere: ps, no peak). */
export function memoryOf(pid: number): { rss: number; peak: number | undefined } {
  if (existsSync(`/proc/${pid}/status`)) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  }
  return { rss: Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024, peak: undefined };
}

/** The environment `serve` gets against a sandbox process: its token and URL, state and config in `dir`, no budget chosen. */
export function serveEnv(sandbox: { token: string; baseUrl: string }, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_ACCESS_TOKEN: sandbox.token,
    YNAB_BASE_URL: sandbox.baseUrl,
  };
  delete env.YNAB_BUDGET_ID;
  return env;
}

export const mb = (bytes: number | undefined) => (bytes === undefined || Number.isNaN(bytes) ? 'n/a' : `${Math.round(bytes / 2 ** 20)} MB`);

export interface StdioServer {
  child: ChildProcess;
  /** Sends a request; resolves with its result (rejects on an error answer). */
  request(method: string, params?: unknown): Promise<any>;
  notify(method: string, params?: unknown): void;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `node <script> ...args` and speaks JSON-RPC to it over stdio. */
export function startStdio(script: string, args: string[], env: NodeJS.ProcessEnv): StdioServer {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: { ...env, NODE_OPTIONS: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let buffer = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = msg.id === undefined ? undefined : pending.get(msg.id);
      if (!waiter) continue;
      pending.delete(msg.id!);
      if (msg.error) waiter.reject(new Error(msg.error.message));
      else waiter.resolve(msg.result);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  child.on('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`the server exited (${code}) before answering; stderr: ${err}`));
    pending.clear();
  });
  const send = (msg: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  return {
    child,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        send({ id, method, ...(params === undefined ? {} : { params }) });
      });
    },
    notify(method, params) {
      send({ method, ...(params === undefined ? {} : { params }) });
    },
    stderr: () => err,
    async stop() {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } };

/** Initializes a started server (initialize, then initialized). */
export async function initialize(server: StdioServer): Promise<void> {
  await server.request('initialize', INITIALIZE);
  server.notify('notifications/initialized');
}

export interface SandboxProcess {
  baseUrl: string;
  token: string;
  pid: number;
  stop(): Promise<void>;
}

/** `ynab-mcp sandbox` in its own process; resolves once it has announced itself. */
export function startSandboxProcess(args: string[] = []): Promise<SandboxProcess> {
  // Seed 1, the sandbox command's default until it took serve --sandbox's: the figures stay
  // measured on the same budgets as before.
  const child = spawn(process.execPath, [CLI, 'sandbox', '--rate-limit', '1000000', '--seed', '1', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}): ${err}`)));
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      const info = JSON.parse(out.slice(0, nl)) as { base_url: string; access_token: string };
      resolve({
        baseUrl: info.base_url,
        token: info.access_token,
        pid: child.pid!,
        stop: () =>
          new Promise<void>((r) => {
            child.removeAllListeners('exit');
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
