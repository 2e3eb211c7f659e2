// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The built server (`node dist/cli.js serve --hosted`, as deployed) reaches Redis through the
 * bundle's own copy of the Redis client (scripts/bundle.mjs: dist/bundle/redis-client.js), not the
 * package's 480 files one by one, which were 0.2 s of an instance's start before it listened: it
 * starts, warms up and says ready on /readyz, and loaded nothing from node_modules/@redis/.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { startDeployment, type Deployment } from '../helpers/hosted.js';
import { freePort } from '../helpers/redis.js';

const REGISTER = join(REPO_ROOT, 'test', 'fixtures', 'load-log', 'register.mjs');
let d: Deployment;

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli.js'))) throw new Error('dist/bundle is missing: run "npm run build" before this test');
  d = await startDeployment({ instances: 0, sandbox: { users: 1 } });
});
afterAll(async () => {
  await d?.close();
});

it('a built hosted instance reaches Redis through the bundled client, warms up and says ready', async () => {
  const e = d.env;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, YNAB_OAUTH_CLIENT_ID: e.clientId, YNAB_OAUTH_CLIENT_SECRET: e.clientSecret, YNAB_MCP_DATA_KEY: e.dataKey };
  delete env.YNAB_ACCESS_TOKEN;
  const args = ['--import', REGISTER, join(REPO_ROOT, 'dist', 'cli.js'), 'serve', '--transport', 'http', '--hosted'];
  args.push('--public-url', e.publicUrl, '--redis', e.redisUrl, '--app-url', e.appUrl, '--base-url', e.baseUrl, '--port', String(port));
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  try {
    let ready = false;
    for (const deadline = Date.now() + 60_000; !ready && Date.now() < deadline && child.exitCode === null;) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready, stderr.slice(-2000)).toBe(true);
    expect(stderr).toMatch(/ynab-mcp: warmed up \d+ ms after the process started \(.*redis \d+ ms.*\); ready/);
    expect(stderr).not.toMatch(/step failed/);
    const loaded = [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!);
    expect(loaded.filter((u) => u.endsWith('/dist/bundle/redis-client.js'))).toHaveLength(1);
    expect(loaded.filter((u) => u.includes('/node_modules/@redis/') || u.includes('/node_modules/redis/'))).toEqual([]);
  } finally {
    child.kill('SIGTERM');
  }
});
