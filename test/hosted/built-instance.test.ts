// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The built server (`node dist/cli.js serve --hosted`, as deployed) takes the Redis client and the
 * authorization server from the bundle's own files (scripts/bundle.mjs: dist/bundle/redis-client.js
 * and oidc-provider.js), not the packages' hundreds of files one by one, which were most of an
 * instance's start before it listened: it starts, warms up, says ready on /readyz, signs a user in
 * through the full flow and answers their call, having loaded nothing of those packages' own files.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment } from '../helpers/hosted.js';
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

it('a built hosted instance takes Redis and the authorization server from the bundle, says ready, signs a user in and answers', async () => {
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
    d.proxy.targets.splice(0, d.proxy.targets.length, `http://127.0.0.1:${port}`);
    const user = await signIn(d.mcpUrl, new MemoryOAuthProvider('Built'), { login: d.sandbox.state.users[0]!.email });
    const accounts = await user.call('list_accounts');
    expect(accounts.isError, JSON.stringify(accounts.content)).toBeFalsy();
    await user.close();
    const loaded = [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!);
    for (const own of ['redis-client.js', 'oidc-provider.js']) expect(loaded.filter((u) => u.endsWith(`/dist/bundle/${own}`))).toHaveLength(1);
    const packages = ['@redis/', 'redis/', 'oidc-provider/', 'koa/', 'jose/'];
    expect(loaded.filter((u) => packages.some((p) => u.includes(`/node_modules/${p}`)))).toEqual([]);
  } finally {
    child.kill('SIGTERM');
  }
});
