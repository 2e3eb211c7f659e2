// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * An instance that works on one MCP request at a time (--concurrent-requests 1): several users'
 * calls sent at once all come back, each with its own user's figures (checked against the
 * sandbox's API); streams held open (subscriptions/listen) stop no one, as a turn held past its
 * longest passes on (src/transport/http-admission.ts); a write through its preview and confirmation
 * lands once. (Over HTTP a confirmation is never a dialog answered inside a held request: the
 * client sends the call again with its confirm_token, as a request of its own: src/transport/http-sessions.ts.)
 * Bad values are refused by name.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedOptions } from '../../src/hosted/options.js';
import { runCli } from '../helpers/cli.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { sandboxApi } from '../helpers/watched-budget.js';

let d: Deployment;
const users: SignedIn[] = [];

beforeAll(async () => {
  d = await startDeployment({ instances: 1, sandbox: { users: 3 }, args: ['--concurrent-requests', '1'], env: { YNAB_MCP_WRITES: 'confirm' } });
  for (const [i, person] of d.sandbox.state.users.entries()) {
    users.push(await signIn(d.mcpUrl, new MemoryOAuthProvider(`Queue ${i}`), { login: person.email, capabilities: { elicitation: { form: {} } } }));
  }
});

afterAll(async () => {
  await Promise.all(users.map((u) => u.close().catch(() => undefined)));
  await d?.close();
});

describe('--concurrent-requests 1', () => {
  it("every user's calls, sent at once, come back with that user's own accounts", async () => {
    const answers = await Promise.all(users.flatMap((u, i) => Array.from({ length: 4 }, () => u.call('list_accounts').then((r) => [i, r] as const))));
    expect(answers).toHaveLength(12);
    for (const [i, res] of answers) {
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      const person = d.sandbox.state.users[i]!;
      const api = sandboxApi(d.sandbox.baseUrl, () => person.accessToken);
      const budget = (await api('GET', '/budgets/last-used')).budget.id as string;
      const expected = ((await api('GET', `/budgets/${budget}/accounts`)).accounts as any[])
        .filter((a) => !a.deleted)
        .map((a) => a.id)
        .sort();
      expect((res.structuredContent.accounts as any[]).map((a) => a.id).sort()).toEqual(expected);
    }
  });

  it('streams held open (subscriptions/listen, one per user) stop no one: calls come back while they last', async () => {
    const listening = await Promise.all(
      users.map(async (u, i) => {
        const client = new Client({ name: `Queue ${i} (listening)`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
        await client.connect(new StreamableHTTPClientTransport(new URL(d.mcpUrl), { authProvider: u.provider }));
        const budget = (await u.call('list_budgets')).structuredContent.budgets[0].id as string;
        return { client, sub: await client.listen({ resourceSubscriptions: [`ynab://budgets/${budget}/alerts`] }) };
      }),
    );
    try {
      // Each stream took the only turn in its time; held past the longest hold, each passed it on.
      const answers = await Promise.all(users.map((u) => u.call('list_accounts')));
      for (const res of answers) expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    } finally {
      await Promise.all(listening.map(async (l) => (await l.sub.close(), await l.client.close())));
    }
  });

  it('a write through the preview and its confirmation lands once, as without the queue', async () => {
    const u = users[0]!;
    const account = ((await u.call('list_accounts')).structuredContent.accounts as any[]).find((a) => a.type === 'checking' && !a.closed)!;
    const memo = `queued write ${Date.now()}`;
    const args = { transactions: [{ account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -4.25, payee_name: 'Queue Cafe', memo }] };
    const preview = await u.call('create_transactions', args);
    expect(preview.isError, preview.content?.[0]?.text).toBeFalsy();
    expect(preview.structuredContent.preview).toBe(true);
    const confirmed = await u.call('create_transactions', { ...args, confirm_token: preview.structuredContent.confirm_token });
    expect(confirmed.isError, confirmed.content?.[0]?.text).toBeFalsy();
    const person = d.sandbox.state.users[0]!;
    const api = sandboxApi(d.sandbox.baseUrl, () => person.accessToken);
    const budget = (await api('GET', '/budgets/last-used')).budget.id as string;
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const found = ((await api('GET', `/budgets/${budget}/transactions?since_date=${since}`)).transactions as any[]).filter((t) => t.memo === memo);
    expect(found).toHaveLength(1);
    expect(found[0].amount).toBe(-4250);
  });
});

/** hostedOptions with one flag given (or not), refusals read as their message. */
const env = { YNAB_OAUTH_CLIENT_ID: 'id', YNAB_OAUTH_CLIENT_SECRET: 'secret', YNAB_MCP_DATA_KEY: Buffer.alloc(32, 7).toString('base64') };
const optionsWith = (flag: string, v?: string) =>
  hostedOptions({ 'public-url': 'https://mcp.example.com', redis: 'redis://127.0.0.1:1', ...(v === undefined ? {} : { [flag]: v }) }, env, () => undefined);
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('--concurrent-requests', () => {
  it('8 by default (0: no limit), a whole number, and only with --hosted', async () => {
    const n = (v?: string) => optionsWith('concurrent-requests', v).concurrentRequests;
    expect(n()).toBe(8);
    expect(n('0')).toBe(0);
    expect(n('32')).toBe(32);
    expect(refused(() => n('-1'))).toMatch(/--concurrent-requests must be a whole number between 0 and 10000, got "-1"/);
    expect(refused(() => n('20000'))).toMatch(/--concurrent-requests must be between 0 and 10000, got 20000/);
    expect(refused(() => n('two'))).toMatch(/--concurrent-requests must be a whole number between 0 and 10000, got "two"/);
    const stray = await runCli(['serve', '--transport', 'http', '--concurrent-requests', '4'], { env });
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toMatch(/--concurrent-requests belongs to hosted mode: add --hosted/);
  });
});

describe('--requests-in-loop', () => {
  it('4 by default (0: no limit), a whole number, and only with --hosted', async () => {
    const n = (v?: string) => optionsWith('requests-in-loop', v).requestsInLoop;
    expect(n()).toBe(4);
    expect(n('0')).toBe(0);
    expect(n('16')).toBe(16);
    expect(refused(() => n('-1'))).toMatch(/--requests-in-loop must be a whole number between 0 and 10000, got "-1"/);
    expect(refused(() => n('four'))).toMatch(/--requests-in-loop must be a whole number between 0 and 10000, got "four"/);
    const stray = await runCli(['serve', '--transport', 'http', '--requests-in-loop', '4'], { env });
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toMatch(/--requests-in-loop belongs to hosted mode: add --hosted/);
  });
});
