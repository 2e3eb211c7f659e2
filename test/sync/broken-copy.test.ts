/**
 * A saved copy of this build's shape is not checked entity by entity again (snapshot-check.ts), so
 * one that decrypts but holds a null or wrongly shaped entry reaches the code that answers from it.
 * When answering from it throws, the copy is dropped (held, saved) with a one-line notice and the
 * budget is fetched whole once more: the answer is right, and neither the next call nor a restart
 * fails; hosted instances sharing a store (feed and all) likewise. The broken copy is sealed with
 * the project's own code and the state directory's key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { tokenKey } from '../../src/quota/ledger.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import type { RequestInfo } from '../../src/api/client/transport.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import { fileKey, ReplicaFiles } from '../../src/sync/persist.js';
import type { ReplicaSnapshot } from '../../src/sync/replica.js';
import { ok } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
let files: ReplicaFiles;
let identity: string;
let budget: string;

/** The server as a host starts it, on this state directory: a real MCP client, in process. */
async function server(requests: RequestInfo[] = []) {
  const state = new ServerState(
    mcpConfig({}, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    { stateDir: dir, persist: true, keySource: fileKey(join(dir, 'replica.key')), onRequest: (r) => requests.push(r) },
  );
  const mcp = buildServer(state, { live: true });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<any>,
    async close() {
      await client.close();
      await mcp.close();
      await state.close();
    },
  };
}

/** The saved copy, spoilt and sealed again as this build seals it (so it is not checked again on reading). */
async function spoil(change: (s: ReplicaSnapshot) => void): Promise<void> {
  const loaded = await files.load(identity, budget);
  if (!loaded.snapshot) throw new Error('no saved copy to spoil');
  change(loaded.snapshot);
  await files.save(identity, loaded.snapshot);
  // Of this build's shape: read back without the entity check that would discard it.
  const back = await files.load(identity, budget);
  expect(back.snapshot && back.checked).toBe(false);
}

const DROPPED = /^The saved copy of this budget could not be used \(.+\); it was discarded and the budget fetched again from YNAB\.$/;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000, strict: true });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-broken-copy-'));
  files = new ReplicaFiles(new FileStateStore(dir), fileKey(join(dir, 'replica.key')), () => undefined);
  identity = tokenKey(sb.accessToken);
  // A first run saves the copy (and which budget last-used named).
  const first = await server();
  budget = ok(await first.call('list_accounts')).budget.id;
  await first.close();
});

afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const fromSync = (requests: RequestInfo[]) => requests.filter((r) => /\/plans\/[^/]+$/.test(r.path)).map((r) => r.query);
const savedNotices = (answer: { notices?: string[] }) => (answer.notices ?? []).filter((n) => /saved copy/.test(n));
/**
 * An answer without what differs from call to call: how old its data is, the notice, and the
 * session's first answer saying which budget it took as the default (src/mcp/state/session-budget.ts).
 */
const same = (answer: Record<string, unknown>) => ({
  ...answer,
  freshness: undefined,
  // The client's own place in the alerts (needs_attention: a first ask says it starts from now), not the budget's answer.
  alerts_since: undefined,
  notices: ((answer.notices as string[] | undefined) ?? []).filter((n) => !/saved copy|stays the default for this session/.test(n)),
});

describe('a saved copy that cannot be answered from', () => {
  it.each<[string, Record<string, unknown>, string, (s: any) => void]>([
    ['list_accounts', {}, 'a null account (the copy cannot be held)', (s) => void (s.accounts[0] = null)],
    ['get_month', { month: 'current' }, 'a null category in the months (answering throws)', (s) => void s.months.forEach((m: any) => (m.categories = [null]))],
    ['spending_summary', {}, 'a null transaction', (s) => void (s.transactions[0] = null)],
    ['needs_attention', {}, 'transactions without dates (computing throws)', (s) => void s.transactions.forEach((t: any) => (t.date = null))],
  ])('%s, %s: %s: the right answer with a one-line notice, from a full sync; then no error, nor after a restart', async (tool, args, _what, change) => {
    const clean = await server();
    const expected = ok(await clean.call(tool, args));
    await clean.close();
    await spoil(change);
    const requests: RequestInfo[] = [];
    const s = await server(requests);
    const first = await s.call(tool, args);
    expect(first.isError, first.content?.[0]?.text).toBeFalsy();
    const answer = first.structuredContent;
    expect(savedNotices(answer)).toEqual([expect.stringMatching(DROPPED)]);
    expect(same(answer)).toEqual(same(expected));
    // The budget was fetched whole: nothing of the broken copy is kept under a delta.
    expect(fromSync(requests)).toContainEqual({});
    const again = ok(await s.call(tool, args));
    expect(savedNotices(again)).toEqual([]);
    expect(same(again)).toEqual(same(expected));
    await s.close();

    const restarted = await server();
    const after = ok(await restarted.call(tool, args));
    expect(savedNotices(after)).toEqual([]);
    expect(same(after)).toEqual(same(expected));
    await restarted.close();
  });
});

describe('hosted instances sharing a store', () => {
  const instance = (requests: RequestInfo[] = []) => {
    const stack = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: dir,
      store: new FileStateStore(dir),
      keySource: fileKey(join(dir, 'replica.key')),
      shared: true,
      quotaLimit: 100_000,
      onRequest: (r) => requests.push(r),
    });
    return stack;
  };
  const month = (stack: Stack) => stack.service.call('getPlanMonth', { params: { budget_id: budget, month: 'current' } });

  it('an instance drops the copy and answers from a full export; the next reads the good copy saved after, with no request', async () => {
    const a = instance();
    const expected = (await month(a)).data;
    await a.close();
    await spoil((s) => void s.months.forEach((m: any) => (m.categories = [null])));

    const requests: RequestInfo[] = [];
    const b = instance(requests);
    const res = await month(b);
    expect(res.data).toEqual(expected);
    expect(res.notices).toEqual([expect.stringMatching(DROPPED)]);
    expect(fromSync(requests)).toEqual([{}]);
    // The feed starts over from that full export: nothing recorded on top of the dropped copy is left.
    expect((await files.loadFeed(identity, budget))?.entries).toEqual([]);
    await b.close();

    const others: RequestInfo[] = [];
    const c = instance(others);
    const again = await month(c);
    expect([again.data, again.notices ?? []]).toEqual([expected, []]);
    expect(others).toEqual([]);
    await c.close();
  });
});
