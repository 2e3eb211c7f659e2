/**
 * A server process's cold start, from spawning it to the answer of its first tools/list, each in
 * a fresh state. The footprint section compares ours with the minimal SDK server's
 * (bench/fixtures/minimal-server.mjs); the minimal server's alone is also the machine's reference
 * (machineReference): the same few modules loaded and the same handshake on every machine and at
 * every commit, so a slower machine shows in it as in every figure measured beside it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialize, memoryOf, ROOT, startStdio } from './processes.js';
import { median } from './stats.js';

export const MINIMAL = join(ROOT, 'bench', 'fixtures', 'minimal-server.mjs');

/** A private state and config directory per server process: every start is a fresh state. */
export function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-footprint-'));
  const env: NodeJS.ProcessEnv = { ...process.env, YNAB_MCP_STATE_DIR: join(dir, 'state'), YNAB_MCP_CONFIG_DIR: join(dir, 'config'), ...extra };
  delete env.YNAB_ACCESS_TOKEN;
  delete env.YNAB_BASE_URL;
  delete env.YNAB_BUDGET_ID;
  return Object.assign(env, extra);
}

export const stateOf = (env: NodeJS.ProcessEnv) => env.YNAB_MCP_STATE_DIR!;
export const removeDirs = (env: NodeJS.ProcessEnv) => rmSync(join(stateOf(env), '..'), { recursive: true, force: true });

/** Time from spawning `node script args` to the answer of its first tools/list, and its memory then. */
export async function timeToToolsList(script: string, args: string[]): Promise<{ ms: number; rss: number }> {
  const env = freshEnv();
  const started = performance.now();
  const server = startStdio(script, args, env);
  try {
    await initialize(server);
    await server.request('tools/list');
    const elapsed = performance.now() - started;
    return { ms: elapsed, rss: memoryOf(server.child.pid!).rss };
  } finally {
    await server.stop();
    removeDirs(env);
  }
}

/**
 * The machine's reference: the minimal SDK server's cold start to its first tools/list, p50 of
 * `runs` after one unmeasured start (the disk's caches warm), with nothing else running. The
 * footprint section measures the same beside ours; two runs' figures compare only as far as this does.
 */
export async function machineReference(runs = 5): Promise<number> {
  await timeToToolsList(MINIMAL, []);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timeToToolsList(MINIMAL, [])).ms);
  return median(times);
}
