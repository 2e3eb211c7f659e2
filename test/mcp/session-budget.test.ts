/**
 * One default budget per session, through a real MCP client against the sandbox's two budgets
 * ("Demo Household", "Haushalt Berlin"). YNAB's `last-used` alias moves with every access, ours
 * included: the session resolves it once and keeps it, whatever a call naming the other budget
 * does to the alias. The first answer says which budget was taken and how to use another;
 * ynab://status names it; a name not found says which budget was searched. In hosted mode the
 * choice is the user's, kept in the state store, so every instance serving them agrees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { SessionBudget, storeKeeper } from '../../src/mcp/state/session-budget.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { readAnswerText } from '../helpers/answer-text.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const today = new Date().toISOString().slice(0, 10);

async function status(client: Client): Promise<Record<string, any>> {
  return readAnswerText(((await client.readResource({ uri: 'ynab://status' })).contents[0] as { text: string }).text).structured;
}

/** The budget the sandbox's `last-used` alias names now. */
function lastUsed(sb: TestSandbox): string | undefined {
  const user = sb.state.users[0]!;
  return user.budgets.find((b) => b.id === user.lastUsedBudgetId)?.rec.name;
}

describe('the default budget of a session', () => {
  let h: McpHarness;
  let demo: string;
  let berlin: string;
  beforeAll(async () => {
    // Every read syncs (--max-staleness 0), as a copy older than the bound does: a sync by alias
    // is where YNAB's moved `last-used` used to be picked up.
    h = await mcpHarness({ maxStalenessMs: 0 });
    const budgets = (await h.sb.get('/budgets')).body.data.budgets;
    demo = budgets.find((b: any) => b.name === 'Demo Household').id;
    berlin = budgets.find((b: any) => b.name === 'Haushalt Berlin').id;
  });
  afterAll(() => h.close());

  it('before any call, status says how the default will be taken', async () => {
    expect((await status(h.client)).default_budget).toEqual({ chosen_by: expect.stringMatching(/^last-used: .*kept for this session/) });
  });

  it('is taken once, says so in the first answer, and does not move after a call naming the other budget', async () => {
    const first = ok(await h.call('needs_attention', {}));
    expect(first.budget).toEqual({ id: demo, name: 'Demo Household' });
    const notice = () =>
      expect(first.notices?.[0]).toMatch(
        /^Calls without budget_id use "Demo Household", the budget last used in YNAB when this session started.*"Haushalt Berlin".*Pass budget_id/,
      );

    expect(ok(await h.call('list_accounts', { budget_id: 'Haushalt Berlin' })).budget).toEqual({ id: berlin, name: 'Haushalt Berlin' });
    // YNAB's alias moved with that call…
    expect(lastUsed(h.sb)).toBe('Haushalt Berlin');

    // …the session's default did not, for reads, writes, and `last-used` given by name.
    const again = ok(await h.call('needs_attention', {}));
    expect(again.budget).toEqual({ id: demo, name: 'Demo Household' });
    expect(again.notices ?? []).not.toContainEqual(expect.stringMatching(/Calls without budget_id/));
    expect(ok(await h.call('list_accounts', { budget_id: 'last-used' })).budget).toEqual({ id: demo, name: 'Demo Household' });
    const created = ok(
      await h.call('create_transactions', { transactions: [{ account_id: 'Wallet', date: today, amount: -1.25, payee_name: 'Session Kiosk' }] }),
    );
    expect(created.budget).toEqual({ id: demo, name: 'Demo Household' });
    expect(created.transactions[0].account_name).toBe('Wallet');
    // The first answer said which budget was taken, the others, and how to use one.
    notice();
  });

  it('ynab://status names the budget and what chose it', async () => {
    expect((await status(h.client)).default_budget).toEqual({
      id: demo,
      name: 'Demo Household',
      chosen_by: expect.stringMatching(/^last-used when this session started/),
    });
  });

  it('a name not found says which budget was searched', async () => {
    const res = await h.call('create_transactions', {
      budget_id: 'Haushalt Berlin',
      transactions: [{ account_id: 'Wallet', date: today, amount: -1, payee_name: 'Nowhere' }],
    });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(
      /account_id "Wallet": no account has that id or name\. Searched the budget "Haushalt Berlin" \(budget_id picks another\)\./,
    );
    const byId = await h.call('search_transactions', { account_id: '00000000-0000-4000-8000-000000000001' });
    expect(byId.content[0].text).toMatch(/no account of this budget has that id\. Searched the budget "Demo Household"/);
  });

  it('a configured --budget is named in status with what set it', async () => {
    const other = await mcpHarness({ flags: { budget: 'Haushalt Berlin' } });
    try {
      expect(ok(await other.call('list_accounts', {})).budget).toEqual({ id: expect.any(String), name: 'Haushalt Berlin' });
      expect((await status(other.client)).default_budget).toEqual({ id: expect.any(String), name: 'Haushalt Berlin', chosen_by: '--budget' });
    } finally {
      await other.close();
    }
  });
});

describe('hosted: the choice is the user’s, in the state store', () => {
  let h: McpHarness;
  let dir: string;
  let store: FileStateStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-session-'));
    store = new FileStateStore(dir);
    h = await mcpHarness({ session: new SessionBudget(storeKeeper(store, 'user-1')) });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Another instance serving the same user: its own server state, the same store. */
  async function anotherInstance(): Promise<{ client: Client; close(): Promise<void> }> {
    const state = new ServerState(
      mcpConfig({}, {}),
      async () => ({ credentials: { token: async () => h.sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: h.sb.baseUrl }),
      { stateDir: dir, persist: false },
      undefined,
      new SessionBudget(storeKeeper(store, 'user-1')),
    );
    const server = buildServer(state, { live: false });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'other', version: '1.0.0' });
    await client.connect(a);
    return { client, close: async () => (await client.close(), await server.close(), await state.close()) };
  }

  it('another instance answers for the budget the first one took, after the alias moved', async () => {
    const first = ok(await h.call('list_accounts', {}));
    expect(first.budget.name).toBe('Demo Household');
    ok(await h.call('list_accounts', { budget_id: 'Haushalt Berlin' }));
    expect(lastUsed(h.sb)).toBe('Haushalt Berlin');
    const b = await anotherInstance();
    try {
      const res = ok(await b.client.callTool({ name: 'list_accounts', arguments: {} }));
      expect(res.budget.name).toBe('Demo Household');
      // Not its choice: it does not claim to have made it.
      expect(res.notices ?? []).not.toContainEqual(expect.stringMatching(/Calls without budget_id/));
      expect((await status(b.client)).default_budget).toMatchObject({ name: 'Demo Household' });
    } finally {
      await b.close();
    }
  });
});

describe('hosted: the kept choice as an instance reads it', () => {
  /** The file store, counting its reads and writes of keys. */
  function countingStore(dir: string) {
    const inner = new FileStateStore(dir);
    const counts = { get: 0, set: 0 };
    const store = new Proxy(inner, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop === 'get' || prop === 'set') return (...args: unknown[]) => (counts[prop]++, (v as (...a: unknown[]) => unknown).apply(target, args));
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    return { store, counts };
  }

  it('answers from the choice it read for a minute (a choice read is kept 23 hours more), then reads it again; a touch keeps it fresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-session-hold-'));
    try {
      const { store, counts } = countingStore(dir);
      let clock = 1_000_000_000_000;
      const now = () => clock;
      const a = storeKeeper(store, 'user-1', now);
      const b = storeKeeper(store, 'user-1', now);
      expect(await a.claim({ id: 'budget-a', at: clock })).toEqual({ id: 'budget-a', at: clock });
      // Instance b chose too, later: the first choice stands, and b holds it from then on.
      expect(await b.claim({ id: 'budget-b', at: clock })).toEqual({ id: 'budget-a', at: clock });
      const reads = counts.get;
      expect(await a.get()).toEqual({ id: 'budget-a', at: clock });
      expect(await b.get()).toEqual({ id: 'budget-a', at: clock });
      expect(counts.get).toBe(reads);
      clock += 60_000;
      expect(await b.get()).toEqual({ id: 'budget-a', at: clock - 60_000 });
      expect(counts.get).toBe(reads + 1);
      // An hour after it was kept, a call touches it: kept again from now, and held as touched.
      clock += 3_600_000;
      const kept = (await a.get())!;
      expect(counts.get).toBe(reads + 2);
      await a.touch(kept);
      expect(counts.set).toBe(1);
      expect(await a.get()).toEqual({ id: 'budget-a', at: clock });
      expect(counts.get).toBe(reads + 2);
      // Another instance reads what was touched.
      clock += 60_000;
      expect(await b.get()).toEqual({ id: 'budget-a', at: clock - 60_000 });
      // Touching a choice less than an hour old writes nothing.
      await b.touch((await b.get())!);
      expect(counts.set).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
