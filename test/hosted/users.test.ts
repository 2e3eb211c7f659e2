// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Two users of one hosted deployment (three instances behind a round-robin proxy, one Redis, the
 * sandbox with two users): each signs in through the full MCP authorization flow as themselves
 * (`login=<email>` on YNAB's sign-in page), works at the same time as the other, and reaches only
 * their own budgets, copies, journals and quota, through every tool, resource and completion.
 * (A token replayed at a deployment with another audience: authorization.test.ts.)
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { grantKey, identityOf, type YnabGrant } from '../../src/hosted/ynab-grants.js';
import { tokenKey } from '../../src/quota/ledger.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { readAnswerText } from '../helpers/answer-text.js';
import { ok } from '../helpers/mcp.js';

let d: Deployment;
let alice: SignedIn;
let bob: SignedIn;
let sbAlice: SandboxUser;
let sbBob: SandboxUser;
let sbCarol: SandboxUser;
let sbDave: SandboxUser;

beforeAll(async () => {
  // Carol and Dave sign in read-only in their own tests.
  d = await startDeployment({ instances: 3, sandbox: { users: 4 } });
  [sbAlice, sbBob, sbCarol, sbDave] = d.sandbox.state.users as [SandboxUser, SandboxUser, SandboxUser, SandboxUser];
  alice = await signIn(d.mcpUrl, new MemoryOAuthProvider("Alice's assistant"), { login: sbAlice.email });
  bob = await signIn(d.mcpUrl, new MemoryOAuthProvider("Bob's assistant", 'http://127.0.0.1:7779/callback'), { login: sbBob.email, era: 'modern' });
});

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  await bob?.close().catch(() => undefined);
  await d?.close();
});

const idsOf = (u: SandboxUser) => new Set(u.budgets.map((b) => b.id));
const accountsOf = (u: SandboxUser) => new Set(u.budgets.flatMap((b) => [...b.rec.accounts.keys()]));
const today = () => new Date().toISOString().slice(0, 10);
const text = (r: any) => JSON.stringify(r);

describe('two users', () => {
  it('each signs in as themselves and sees only their own budgets', async () => {
    const a = ok(await alice.call('list_budgets')).budgets.map((b: any) => b.id);
    const b = ok(await bob.call('list_budgets')).budgets.map((b: any) => b.id);
    expect(new Set(a)).toEqual(idsOf(sbAlice));
    expect(new Set(b)).toEqual(idsOf(sbBob));
    expect(a.filter((id: string) => b.includes(id))).toEqual([]);
    expect(ok(await alice.call('get_user')).user.id).toBe(sbAlice.id);
    expect(ok(await bob.call('get_user')).user.id).toBe(sbBob.id);
  });

  it("mixed calls of both at once, over every instance: every answer and every write is the caller's own", async () => {
    const run = `mixed-${Date.now()}`;
    const work = async (who: SignedIn, me: SandboxUser, other: SandboxUser, name: string) => {
      const budget = me.budgets[0]!.id;
      const account = [...me.budgets[0]!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
      const answers: unknown[] = [];
      for (let i = 0; i < 24; i++) {
        const [tool, args]: [string, Record<string, unknown>] =
          i % 6 === 0
            ? [
                'create_transactions',
                { budget_id: budget, allow_duplicate: true, transactions: [{ account_id: account, date: today(), amount: -2.5, memo: `${run} ${name} ${i}` }] },
              ]
            : i % 6 === 1
              ? ['list_accounts', {}]
              : i % 6 === 2
                ? ['list_transactions', { since_date: today(), limit: 50 }]
                : i % 6 === 3
                  ? ['get_month', { month: 'current', limit: 5 }]
                  : i % 6 === 4
                    ? ['list_payees', { limit: 10 }]
                    : ['list_budgets', {}];
        answers.push(ok(await who.call(tool, args)));
      }
      // Nothing the other user owns appears in what this one was told.
      const all = text(answers);
      for (const id of [...idsOf(other), ...accountsOf(other)]) expect(all).not.toContain(id);
      return answers;
    };
    await Promise.all([work(alice, sbAlice, sbBob, 'alice'), work(bob, sbBob, sbAlice, 'bob')]);
    const memos = (u: SandboxUser) =>
      u.budgets
        .flatMap((b) => [...b.rec.transactions.values()])
        .filter((t) => !t.deleted && t.memo?.startsWith(run))
        .map((t) => t.memo!);
    expect(memos(sbAlice).sort()).toEqual([0, 6, 12, 18].map((i) => `${run} alice ${i}`).sort());
    expect(memos(sbBob).sort()).toEqual([0, 6, 12, 18].map((i) => `${run} bob ${i}`).sort());
  });
});

describe("a user's default budget", () => {
  it('stays the one first taken, on every instance, after a call naming another budget; kept in Redis under the user', async () => {
    const first = ok(await bob.call('list_accounts', {})).budget;
    const other = sbBob.budgets.find((b) => b.id !== first.id)!;
    expect(ok(await bob.call('list_accounts', { budget_id: other.id })).accounts.length).toBeGreaterThan(0);
    // YNAB's alias moved with that call; every instance (round robin) still answers for the first.
    expect(sbBob.lastUsedBudgetId).toBe(other.id);
    for (let i = 0; i < 3; i++) expect(ok(await bob.call('list_accounts', {})).budget).toEqual(first);
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      const identity = identityOf(new DataKey(parseDataKey(d.env.dataKey, 'test')), sbBob.id);
      const keys: string[] = [];
      for await (const batch of raw.scanIterator({ MATCH: `ynab-mcp:replicas/*${identity}*/session-budget.json`, COUNT: 1000 })) keys.push(...batch);
      expect(keys).toHaveLength(1);
      expect(JSON.parse((await raw.get(keys[0]!))!)).toMatchObject({ id: first.id });
      expect(await raw.pTTL(keys[0]!)).toBeGreaterThan(0);
    } finally {
      await raw.close();
    }
  });
});

describe('a read-only grant', () => {
  it('lists no write tools from the first tools/list, on every instance; a full grant lists them', async () => {
    const writeTools = async (who: SignedIn) => (await who.client.listTools()).tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name);
    const carol = await signIn(d.mcpUrl, new MemoryOAuthProvider("Carol's assistant", 'http://127.0.0.1:7781/callback'), {
      login: sbCarol.email,
      decision: 'read-only',
    });
    try {
      // Before any tool call (nothing has reached YNAB for her yet), whichever instance answers.
      for (let i = 0; i < 3; i++) expect(await writeTools(carol)).toEqual([]);
      expect(await writeTools(alice)).toContain('create_transactions');
      ok(await carol.call('list_budgets'));
      expect(await writeTools(carol)).toEqual([]);
    } finally {
      await carol.close();
    }
  });
});

describe("a user's server turning read-only", () => {
  it("tells that user's listening client, and not another user's listening on the same instance", async () => {
    // Dave signs in read-only; then his grant is made to look full, as one recorded before its
    // scope was (signed_in_at moved, so instances build his state again): his first write is
    // refused by YNAB (403.3), which is what turns a server read-only while clients listen.
    const dave = await signIn(d.mcpUrl, new MemoryOAuthProvider("Dave's assistant", 'http://127.0.0.1:7782/callback'), {
      login: sbDave.email,
      decision: 'read-only',
      era: 'modern',
    });
    const key = new DataKey(parseDataKey(d.env.dataKey, 'test'));
    const name = grantKey(identityOf(key, sbDave.id));
    const raw = createClient({ url: d.redis.url, commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } });
    await raw.connect();
    try {
      const grant = key.openJson<YnabGrant>((await raw.get(`ynab-mcp:${name}`)) as Buffer, name)!;
      expect(grant.token_scope).toBe('read-only');
      await raw.set(`ynab-mcp:${name}`, key.sealJson({ ...grant, token_scope: 'full', signed_in_at: new Date(Date.now() + 1000).toISOString() }, name));
    } finally {
      await raw.close();
    }
    // Both listen on one instance (a stream hears only the instance it is open on).
    const direct = async (who: SignedIn) => {
      const client = new Client({ name: `${who.provider.name} (direct)`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${d.instances[0]!.url}/mcp`), { authProvider: who.provider }));
      const heard: number[] = [];
      let first!: () => void;
      const firstHeard = new Promise<void>((r) => (first = r));
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        heard.push(1);
        first();
      });
      const sub = await client.listen({ toolsListChanged: true });
      expect(sub.honoredFilter.toolsListChanged).toBe(true);
      return { client, heard, firstHeard, sub };
    };
    const daveListens = await direct(dave);
    const bobListens = await direct(bob);
    try {
      expect((await daveListens.client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name)).toContain('create_transactions');
      const account = [...sbDave.budgets[0]!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
      const refused: any = await daveListens.client.callTool({
        name: 'create_transactions',
        arguments: { budget_id: sbDave.budgets[0]!.id, transactions: [{ account_id: account, date: today(), amount: -1, memo: 'dave' }] },
      });
      expect(refused.isError).toBe(true);
      await daveListens.firstHeard;
      expect((await daveListens.client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name)).not.toContain('create_transactions');
      // Bob's stream was open on the same instance when Dave's event was published. (The event is
      // written to every matching stream at once; that Bob's is not among them is proven without
      // any wait in test/mcp/scoped-bus.test.ts.)
      expect(bobListens.heard).toEqual([]);
    } finally {
      for (const l of [daveListens, bobListens]) {
        await l.sub.close();
        await l.client.close();
      }
      await dave.close();
    }
  });
});

describe('cross-user access is refused', () => {
  it("through tools: reading or writing another user's budget, account or transactions", async () => {
    const budget = sbAlice.budgets[0]!;
    const account = [...budget.rec.accounts.values()].find((a) => !a.closed)!;
    const before = budget.rec.transactions.size;
    const attempts = [
      await bob.call('list_accounts', { budget_id: budget.id }),
      await bob.call('get_account', { budget_id: budget.id, account_id: account.id }),
      await bob.call('list_transactions', { budget_id: budget.id }),
      await bob.call('get_budget_settings', { budget_id: budget.id }),
      await bob.call('create_transactions', {
        budget_id: budget.id,
        transactions: [{ account_id: account.id, date: today(), amount: -1, memo: 'bob was here' }],
      }),
    ];
    for (const r of attempts) {
      expect(r.isError, text(r)).toBe(true);
      expect(text(r)).not.toContain(account.name);
    }
    expect(budget.rec.transactions.size).toBe(before);
    // Bob's own budget still answers.
    ok(await bob.call('list_accounts', { budget_id: sbBob.budgets[0]!.id }));
  });

  it('through resources and their lists', async () => {
    const budget = sbAlice.budgets[0]!;
    await expect(bob.client.readResource({ uri: `ynab://budgets/${budget.id}/accounts` })).rejects.toThrow(/not found/i);
    await expect(bob.client.readResource({ uri: `ynab://budgets/${budget.id}` })).rejects.toThrow(/not found/i);
    const listed = text(await bob.client.listResources());
    for (const id of idsOf(sbAlice)) expect(listed).not.toContain(id);
    for (const id of idsOf(sbBob)) expect(listed).toContain(id);
  });

  it("through completions: budget ids are the caller's, and another user's budget completes nothing", async () => {
    const ref = { type: 'ref/resource' as const, uri: 'ynab://budgets/{budget_id}/accounts/{account_id}' };
    const budgets = await bob.client.complete({ ref, argument: { name: 'budget_id', value: '' } });
    expect(new Set(budgets.completion.values.filter((v) => v !== 'last-used'))).toEqual(idsOf(sbBob));
    const theirs = await bob.client.complete({
      ref,
      argument: { name: 'account_id', value: '' },
      context: { arguments: { budget_id: sbAlice.budgets[0]!.id } },
    });
    expect(theirs.completion.values).toEqual([]);
    const mine = await bob.client.complete({ ref, argument: { name: 'account_id', value: '' }, context: { arguments: { budget_id: sbBob.budgets[0]!.id } } });
    expect(mine.completion.values.length).toBeGreaterThan(0);
    for (const v of mine.completion.values) expect(accountsOf(sbBob).has(v)).toBe(true);
  });

  it("with the other user's refresh token: invalid_grant for another client", async () => {
    const tokens = alice.provider.tokens()!;
    const res = await fetch(`${d.proxy.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: bob.provider.clientInformation()!.client_id,
        resource: d.mcpUrl,
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it("quota, copies and journals are each user's own in Redis", async () => {
    const status = async (who: SignedIn) =>
      readAnswerText(((await who.client.readResource({ uri: 'ynab://status' })).contents[0] as { text: string }).text).structured;
    const write = (who: SignedIn, u: SandboxUser, memo: string) => {
      const account = [...u.budgets[0]!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
      // Alike on purpose (the duplicate guard would hold the second).
      return who
        .call('create_transactions', {
          budget_id: u.budgets[0]!.id,
          allow_duplicate: true,
          transactions: [{ account_id: account, date: today(), amount: -1, memo }],
        })
        .then(ok);
    };
    await write(alice, sbAlice, 'quota alice');
    await write(bob, sbBob, 'quota bob');
    const aliceBefore = (await status(alice)).quota?.used;
    const bobBefore = (await status(bob)).quota?.used;
    expect(typeof aliceBefore).toBe('number');
    for (let i = 0; i < 3; i++) await write(bob, sbBob, `quota bob ${i}`);
    expect((await status(alice)).quota?.used).toBe(aliceBefore);
    expect((await status(bob)).quota?.used).toBeGreaterThanOrEqual(bobBefore + 3);
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      for (const [u, other] of [
        [sbAlice, sbBob],
        [sbBob, sbAlice],
      ] as const) {
        const identity = identityOf(new DataKey(parseDataKey(d.env.dataKey, 'test')), u.id);
        const keys: string[] = [];
        for await (const batch of raw.scanIterator({ MATCH: `ynab-mcp:*/${identity}/*`, COUNT: 1000 })) keys.push(...batch);
        expect(keys.some((k) => k.includes('/replicas/') || k.startsWith('ynab-mcp:replicas/'))).toBe(true);
        expect(keys.some((k) => k.startsWith('ynab-mcp:journal/'))).toBe(true);
        for (const k of keys) for (const id of idsOf(other)) expect(k).not.toContain(id);
      }
    } finally {
      await raw.close();
    }
  });

  it('Redis key names do not confirm who has data there: neither a YNAB user id nor an unkeyed hash of it', async () => {
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      const all: string[] = [];
      for await (const batch of raw.scanIterator({ MATCH: '*', COUNT: 1000 })) all.push(...batch);
      const key = new DataKey(parseDataKey(d.env.dataKey, 'test'));
      for (const u of [sbAlice, sbBob]) {
        // Their grant is there, under the identity only the data key can compute...
        expect(all).toContain(`ynab-mcp:grants/${identityOf(key, u.id)}.json`);
        // ...and nothing a holder of their YNAB id could compute without it names any key.
        for (const guess of [u.id, tokenKey(`ynab-user:${u.id}`)])
          expect(
            all.filter((k) => k.includes(guess)),
            guess,
          ).toEqual([]);
      }
    } finally {
      await raw.close();
    }
  });
});

// Last: it signs Bob in again read-only, which the rest of this file does not expect.
describe('a user who chose read-only access', () => {
  it('is never offered write tools, from the first tools/list on whichever instance answers it', async () => {
    const readOnly = await signIn(d.mcpUrl, new MemoryOAuthProvider("Bob's read-only assistant", 'http://127.0.0.1:7781/callback'), {
      login: sbBob.email,
      decision: 'read-only',
    });
    try {
      // initialize, initialized and this list go to three different instances (round robin): on
      // this one nothing of Bob's has connected yet, so only the grant's stored scope can tell.
      const first = (await readOnly.client.listTools()).tools.map((t) => t.name);
      expect(first).toContain('list_budgets');
      expect(first).not.toContain('create_transactions');
      expect(first).not.toContain('delete_transaction');
      for (let i = 0; i < 3; i++) expect((await readOnly.client.listTools()).tools.map((t) => t.name)).not.toContain('update_transactions');
      expect(ok(await readOnly.call('list_budgets')).budgets.length).toBeGreaterThan(0);
    } finally {
      await readOnly.close();
    }
  });
});
