/**
 * `ynab-mcp sandbox` as a real child process: exactly one JSON line on stdout and nothing else
 * ever, logs on stderr without secrets, clean exit on SIGTERM and SIGINT, flags honoured, and
 * clear errors (exit code 2 for bad flags, non-zero for a busy port).
 */
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAllCli, runCli, startCli, type Announcement, type CliProcess } from './cli-process.js';

// Tests stop their own children; whatever a failed test left running is killed here.
afterAll(() => killAllCli());

const KEYS = ['access_token', 'app_url', 'base_url', 'oauth_client_id', 'oauth_client_secret', 'read_only_token'];
/** Besides the first user's tokens at the top, every user's under `users`. */
const ALL_KEYS = [...KEYS, 'users'].sort();

async function call(a: Announcement, method: string, path: string, token: string = a.access_token, body?: unknown) {
  const res = await fetch(`${a.base_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function expectOneLine(p: CliProcess, a: Announcement) {
  expect(p.stdout).toBe(`${JSON.stringify(a)}\n`);
  expect(p.stdout.split('\n')).toHaveLength(2);
}

function expectNoSecrets(text: string, a: Announcement) {
  for (const secret of [a.access_token, a.read_only_token, a.oauth_client_secret]) expect(text).not.toContain(secret);
}

describe('announcement and output channels', () => {
  it('prints exactly one JSON line with exactly the six keys and users, and nothing more on stdout', async () => {
    const p = startCli(['sandbox', '--port', '0', '--seed', 's', '--verbose']);
    const a = await p.announcement;
    expect(Object.keys(a).sort()).toEqual(ALL_KEYS);
    expect((a as any).users).toEqual([{ email: 'user1@sandbox.ynab-mcp.test', access_token: a.access_token, read_only_token: a.read_only_token }]);
    expect(a.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d{2,5}\/v1$/);
    expect(a.base_url).toBe(`${a.app_url}/v1`);
    for (const key of KEYS) expect(typeof a[key as keyof Announcement]).toBe('string');
    expect(new Set([a.access_token, a.read_only_token, a.oauth_client_secret]).size).toBe(3);
    expectOneLine(p, a);

    // Requests of every kind, errors included, and an OAuth round trip.
    expect((await call(a, 'GET', '/user')).status).toBe(200);
    const budgets = await call(a, 'GET', '/budgets');
    const budget = budgets.body.data.budgets[0].id;
    expect((await call(a, 'POST', `/budgets/${budget}/payees`, a.access_token, { payee: { name: 'CLI Payee' } })).status).toBe(201);
    expect((await call(a, 'GET', '/nope')).status).toBe(404);
    expect((await call(a, 'GET', '/user', 'wrong')).status).toBe(401);
    const viaQuery = await fetch(`${a.base_url}/user?access_token=${encodeURIComponent(a.access_token)}`);
    expect(viaQuery.status).toBe(200);
    const authorize = await fetch(
      `${a.app_url}/oauth/authorize?${new URLSearchParams({ client_id: a.oauth_client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code' })}`,
      { redirect: 'manual' },
    );
    expect(authorize.status).toBe(302);
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
    const token = await fetch(`${a.app_url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: a.oauth_client_id,
        client_secret: a.oauth_client_secret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://127.0.0.1:9/cb',
      }),
    });
    const oauthToken = ((await token.json()) as any).access_token as string;
    expect((await call(a, 'GET', '/user', oauthToken)).status).toBe(200);

    // Verbose logging went to stderr, one line per request, without any secret.
    const deadline = Date.now() + 5_000;
    while (!p.stderr.includes('/oauth/token') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(p.stderr).toMatch(/GET \/v1\/user -> 200/);
    expect(p.stderr).toMatch(/POST \/v1\/budgets\/[0-9a-f-]+\/payees -> 201/);
    expect(p.stderr).toMatch(/POST \/oauth\/token -> 200/);
    expectNoSecrets(p.stderr, a);
    expect(p.stderr).not.toContain(oauthToken);
    expect(p.stderr).not.toContain(code);
    expectOneLine(p, a);

    const exit = await p.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expectOneLine(p, a);
    expectNoSecrets(p.stderr, a);
    expect(p.stderr).toMatch(/SIGTERM/);
  });

  it('exits cleanly with code 0 on SIGINT, also with a request in flight', async () => {
    const p = startCli(['sandbox', '--port', '0', '--faults', 'slow=1', '--request-timeout', '60000']);
    const a = await p.announcement;
    const inFlight = fetch(`${a.base_url}/user`, { headers: { authorization: `Bearer ${a.access_token}` } }).then(
      (r) => r.status,
      () => 'dropped',
    );
    await new Promise((r) => setTimeout(r, 100));
    const exit = await p.stop('SIGINT', 10_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(['dropped', 200, 503]).toContain(await inFlight);
    expectOneLine(p, a);
  });
});

describe('signals right after the announcement', () => {
  it('exit cleanly: the handlers are in place before the line is printed', async () => {
    // A supervisor may signal the moment it has read the line; without handlers by then the
    // process would die of the signal (code null) without saving.
    const runs = Array.from({ length: 6 }, (_, i) => startCli(['sandbox', '--port', '0', '--seed', `sig-${i}`]));
    const exits = await Promise.all(
      runs.map(async (p, i) => {
        await p.announcement;
        return p.stop(i % 2 ? 'SIGINT' : 'SIGTERM');
      }),
    );
    expect(exits).toEqual(runs.map(() => ({ code: 0, signal: null })));
  });
});

describe('flags', () => {
  it('honours --token, --read-only-token and --rate-limit', async () => {
    const p = startCli(['sandbox', '--port', '0', '--token', 'my-full-token-1', '--read-only-token', 'my-ro-token-1', '--rate-limit', '3']);
    const a = await p.announcement;
    expect(a.access_token).toBe('my-full-token-1');
    expect(a.read_only_token).toBe('my-ro-token-1');
    const user = await call(a, 'GET', '/user', 'my-full-token-1');
    expect(user.status).toBe(200);
    expect(user.headers.get('x-rate-limit')).toBe('1/3');
    const write = await call(a, 'POST', '/budgets/last-used/payees', 'my-ro-token-1', { payee: { name: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body.error.id).toBe('403.3');
    expect((await call(a, 'POST', '/budgets/last-used/payees', 'my-full-token-1', { payee: { name: 'Mine' } })).status).toBe(201);
    expect((await call(a, 'GET', '/user', 'my-full-token-1')).headers.get('x-rate-limit')).toBe('3/3');
    expect((await call(a, 'GET', '/user', 'my-full-token-1')).status).toBe(429);
    expectNoSecrets(p.stderr, a);
    expect((await p.stop()).code).toBe(0);
  });

  it('gives the same demo data for the same --seed and different data for another', async () => {
    const ids = async (seed: string) => {
      const p = startCli(['sandbox', '--port', '0', '--seed', seed]);
      const a = await p.announcement;
      const budgets = (await call(a, 'GET', '/budgets')).body.data.budgets.map((b: any) => b.id);
      expect((await p.stop()).code).toBe(0);
      return budgets as string[];
    };
    const [one, again, other] = await Promise.all([ids('alpha'), ids('alpha'), ids('beta')]);
    expect(one).toEqual(again);
    expect(one).not.toEqual(other);
  });

  it('ignores body fields the API does not define, and --strict refuses them with a 400 naming them', async () => {
    const assign = async (args: string[]) => {
      const p = startCli(['sandbox', '--port', '0', ...args]);
      const a = await p.announcement;
      const groups = (await call(a, 'GET', '/budgets/last-used/categories')).body.data.category_groups;
      const category = groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories)[0];
      const res = await call(a, 'PATCH', `/budgets/last-used/months/current/categories/${category.id}`, a.access_token, {
        category: { budgeted: 1000, activity: 5 },
      });
      expect((await p.stop()).code).toBe(0);
      return res;
    };
    const [lenient, strict] = await Promise.all([assign([]), assign(['--strict'])]);
    expect(lenient.status).toBe(200);
    expect(lenient.body.data.category.budgeted).toBe(1000);
    expect(strict.status).toBe(400);
    expect(strict.body.error.detail).toBe('category: unknown field "activity"');
  });

  it('--help prints the usage on stdout and exits 0', async () => {
    const run = await runCli(['sandbox', '--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/Usage: ynab-mcp sandbox/);
    expect(run.stdout).toMatch(/--read-only-token/);
  });
});

describe('errors', () => {
  let blocker: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
    blocker = undefined;
  });

  it('a busy --port: a clear error and a non-zero exit', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const run = await runCli(['sandbox', '--port', String(port)]);
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`127.0.0.1:${port}`);
    expect(run.stderr).toMatch(/already in use/);
    expect(run.stderr).toMatch(/--port/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  const refusals: [string[], RegExp][] = [
    [['--transactions', '999999999'], /--transactions must be between 0 and 200000/],
    [['--transactions', '-5'], /--transactions/],
    [['--port', 'abc'], /--port must be a whole number/],
    [['--port', '70000'], /--port must be between 0 and 65535/],
    [['--rate-limit', '0'], /--rate-limit/],
    [['--rate-limit', '1.5'], /--rate-limit/],
    [['--oauth-token-ttl', 'soon'], /--oauth-token-ttl/],
    [['--request-timeout', '0'], /--request-timeout/],
    [['--faults', 'explode=1'], /--faults/],
    [['--token', ''], /--token/],
    [['--token', 'has space'], /--token/],
    [['--token', 'same-token', '--read-only-token', 'same-token'], /--token and --read-only-token must differ/],
    [['--bogus'], /--bogus/],
    [['--seed'], /--seed/],
    [['positional'], /positional/],
  ];
  // Concurrent: each run is a separate process; the test context's expect keeps them apart.
  it.concurrent.for(refusals)('refuses %j with exit code 2 and a message naming it', async ([args, message], { expect }) => {
    const run = await runCli(['sandbox', '--port', '0', ...args]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^ynab-mcp: /);
  });

  it('refuses an unknown command with exit code 2', async () => {
    const run = await runCli(['sandbx']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/unknown command "sandbx"/);
  });
});
