/**
 * Real child processes that start together: each loads what it needs, prints "ready", waits for
 * "go" on stdin (so that all of them act at the same moment), and prints one JSON line with what
 * it got. `startChild` is the parent's side; `readyThenGo` the child's.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface GoChild<T> {
  ready: Promise<void>;
  go(): void;
  /** The child's JSON line, once it exited 0. */
  done: Promise<T>;
}

/** Runs `fixture` (a .ts file) with tsx and `env` added to this process's environment. */
export function startChild<T>(fixture: string, env: Record<string, string>, args: string[] = []): GoChild<T> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<T>((resolveDone, reject) => {
    proc.on('error', reject);
    proc.on('close', (code) => {
      const line = out.split('\n')[1];
      if (code !== 0 || !line) reject(new Error(`child exited ${code}: ${err}`));
      else resolveDone(JSON.parse(line) as T);
    });
  });
  return { ready, go: () => proc.stdin.end('go\n'), done };
}

/** Starts every child, waits until all are ready, then lets them go at once. */
export async function runTogether<T>(children: GoChild<T>[]): Promise<T[]> {
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  return Promise.all(children.map((c) => c.done));
}

/** In a child: says "ready" and resolves at "go". */
export function readyThenGo(): Promise<void> {
  process.stdout.write('ready\n');
  return new Promise<void>((resolveGo) => {
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      if (chunk.includes('go')) {
        process.stdin.pause();
        resolveGo();
      }
    });
  });
}
