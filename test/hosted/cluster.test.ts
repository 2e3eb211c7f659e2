// @module-tag redis (needs redis-server and redis-cli: skipped without them, see test/helpers/services.ts)
/**
 * Hosted mode on a real Redis Cluster of three masters (test/helpers/redis-cluster.ts), three
 * instances behind a round-robin proxy given `--redis redis+cluster://…`, and two users of the
 * sandbox: the hosted flow passes as on one Redis (sign-in, calls, read-your-writes, refresh
 * single-flight, confirm tokens and undo across instances, isolation), each user's keys sit in
 * one slot, and a master stopped while clients work costs no write twice and none half: each is
 * acknowledged and in YNAB once, or refused saying nothing changed and not in YNAB; when the
 * master returns (same port, same nodes.conf and data) the service carries on with the same tokens.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { identityOf } from '../../src/hosted/ynab-grants.js';
import { clusterName } from '../../src/storage/keys.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

/** YNAB tokens live 320 s and are refreshed 300 s before expiry: due 20 s after sign-in. */
const TTL_S = 320;
const DUE_AFTER_MS = (TTL_S - 300) * 1000;

interface Person {
  s: SignedIn;
  sb: SandboxUser;
  identity: string;
}

let d: Deployment;
const people: Person[] = [];
let lastSignIn = 0;

beforeAll(async () => {
  d = await startDeployment({ redis: 'cluster', instances: 3, sandbox: { users: 2, oauthTokenTtl: TTL_S }, args: ['--max-staleness', '0'] });
  const key = new DataKey(parseDataKey(d.env.dataKey, 'YNAB_MCP_DATA_KEY'));
  for (const [i, sb] of d.sandbox.state.users.entries()) {
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Cluster Test ${i}`, `http://127.0.0.1:${7800 + i}/callback`), {
      login: sb.email,
      era: i ? 'modern' : 'legacy',
    });
    people.push({ s, sb, identity: identityOf(key, sb.id) });
  }
  lastSignIn = Date.now();
}, 120_000);

afterAll(async () => {
  for (const p of people) await p.s.close().catch(() => undefined);
  await d?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const budgetOf = (p: Person) => p.sb.budgets[0]!;
const checking = (p: Person) => [...budgetOf(p).rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
const memosIn = (p: Person, start: string) =>
  p.sb.budgets
    .flatMap((b) => [...b.rec.transactions.values()])
    .filter((t) => !t.deleted && t.memo?.startsWith(start))
    .map((t) => t.memo!);

/** Every key name held by the masters of the cluster. */
async function clusterKeys(): Promise<{ port: number; key: string }[]> {
  const out: { port: number; key: string }[] = [];
  for (const port of d.cluster!.ports) {
    const raw = createClient({ url: `redis://127.0.0.1:${port}` });
    await raw.connect();
    try {
      let cursor = '0';
      do {
        const [next, batch] = (await raw.sendCommand(['SCAN', cursor, 'COUNT', '1000'])) as [string, string[]];
        cursor = String(next);
        for (const key of batch) out.push({ port, key: String(key) });
      } while (cursor !== '0');
    } finally {
      await raw.close();
    }
  }
  return out;
}

it("two users sign in on the cluster, each sees only their own budgets, and each user's keys are in one slot", async () => {
  for (const [i, p] of people.entries()) {
    const other = people[1 - i]!;
    const listed = ok(await p.s.call('list_budgets')).budgets.map((b: { id: string }) => b.id);
    expect(new Set(listed)).toEqual(new Set(p.sb.budgets.map((b) => b.id)));
    const refused: any = await p.s.call('list_accounts', { budget_id: budgetOf(other).id });
    expect(refused.isError).toBe(true);
    ok(await p.s.call('list_accounts', { budget_id: budgetOf(p).id }));
  }
  const keys = await clusterKeys();
  for (const p of people) {
    const mine = keys.filter((k) => k.key.includes(`{${p.identity}}`));
    // The grant, the copies and the write journal at least, all on the one master of the user's slot.
    expect(mine.map((k) => k.key.replace(/^ynab-mcp:([a-z]+)\/.*$/, '$1'))).toEqual(expect.arrayContaining(['grants', 'replicas']));
    expect(new Set(mine.map((k) => k.port)).size).toBe(1);
    // No key names the user outside the tag.
    expect(keys.filter((k) => k.key.includes(p.identity) && !k.key.includes(`{${p.identity}}`)).map((k) => k.key)).toEqual([]);
  }
  // The others (oauth records, ledgers) are spread over the masters.
  expect(new Set(keys.map((k) => k.port)).size).toBe(3);
});

it("each user's expiring YNAB token is refreshed exactly once across three instances on the cluster", async () => {
  const owner = () =>
    new Map(
      d.sandbox.tokens
        .snapshot()
        .grants.filter((g) => g.refresh_token)
        .map((g) => [g.refresh_token!, g.user_id]),
    );
  const refreshes = (from: number) => {
    const of = owner();
    const counts: Record<string, number> = {};
    for (const r of d.upstream.requests.slice(from)) {
      if (!r.url.startsWith('/oauth/token') || r.form?.get('grant_type') !== 'refresh_token') continue;
      const user = of.get(r.form.get('refresh_token')!) ?? 'unknown';
      counts[user] = (counts[user] ?? 0) + 1;
    }
    return counts;
  };
  for (let i = 0; i < 3; i++) for (const p of people) ok(await p.s.call('list_accounts'));
  await new Promise((r) => setTimeout(r, Math.max(0, lastSignIn + DUE_AFTER_MS + 1000 - Date.now())));
  const mark = d.upstream.requests.length;
  const results = await Promise.all(
    people.flatMap((p) => Array.from({ length: 9 }, (_, i) => p.s.call(i % 3 ? 'list_money_movements' : 'list_accounts', { budget_id: budgetOf(p).id }))),
  );
  for (const r of results) ok(r);
  expect(refreshes(mark)).toEqual(Object.fromEntries(people.map((p) => [p.sb.id, 1])));
}, 60_000);

it('writes are in the next answer of every instance; a delete previewed on one is confirmed on another, once, and undone', async () => {
  const p = people[0]!;
  const budget = budgetOf(p).id;
  const on = await Promise.all(d.instances.map((inst) => signIn(`${inst!.url}/mcp`, p.s.provider)));
  try {
    const memo = `cluster confirm ${Date.now()}`;
    const id = ok(
      await on[0]!.call('create_transactions', { budget_id: budget, transactions: [{ account_id: checking(p), date: today(), amount: -4.56, memo }] }),
    ).transaction_ids[0];
    for (const c of on.slice(1))
      expect(ok(await c.call('list_transactions', { budget_id: budget, since_date: today(), limit: 500 })).transactions.map((t: any) => t.id)).toContain(id);
    const record = () => budgetOf(p).rec.transactions.get(id)!;
    const preview = ok(await on[0]!.call('delete_transaction', { budget_id: budget, transaction_id: id }));
    expect(preview.preview).toBe(true);
    const done = ok(await on[1]!.call('delete_transaction', { budget_id: budget, transaction_id: id, confirm_token: preview.confirm_token }));
    expect(record().deleted).toBe(true);
    const again: any = await on[2]!.call('delete_transaction', { budget_id: budget, transaction_id: id, confirm_token: preview.confirm_token });
    expect(again.content[0].text).toMatch(/confirm_token was already used/);
    const undoPreview = ok(await on[2]!.call('undo_change', { budget_id: budget, change_id: done.change_id }));
    ok(await on[0]!.call('undo_change', { budget_id: budget, change_id: done.change_id, confirm_token: undoPreview.confirm_token }));
    expect(memosIn(p, memo)).toEqual([memo]);
  } finally {
    for (const c of on) await c.close();
  }
});

it('a master stopped while clients work: each write is done once or refused saying nothing changed; when it returns, the service recovers', async () => {
  const cluster = d.cluster!;
  const victim = people[0]!;
  const port = await cluster.masterOf(`ynab-mcp:${clusterName(`grants/${victim.identity}.json`)}`);
  const run = `failover-${Date.now()}`;
  const outcome = new Map<Person, { acknowledged: string[]; refused: { memo: string; text: string }[] }>();
  let creates = 0;
  let stopping: Promise<void> | undefined;
  // Stopped the moment the victim's third create is on its way, before it can have been answered.
  d.proxy.onForward = (_target, body) => {
    if (!stopping && body.includes('"create_transactions"') && body.includes(`${run} 0 `) && ++creates === 3) stopping = cluster.stopNode(port);
  };
  const working: Promise<void>[] = [];
  for (const [pi, p] of people.entries()) {
    const mine = { acknowledged: [] as string[], refused: [] as { memo: string; text: string }[] };
    outcome.set(p, mine);
    let n = 0;
    const worker = async () => {
      while (n < 16) {
        const i = n++;
        const memo = `${run} ${pi} ${i}`;
        const res: any = await p.s
          .call('create_transactions', {
            budget_id: budgetOf(p).id,
            transactions: [{ account_id: checking(p), date: today(), amount_milliunits: -1000 - i * 10, memo }],
          })
          .catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
        if (!res.isError) mine.acknowledged.push(memo);
        else mine.refused.push({ memo, text: String(res.content?.[0]?.text ?? JSON.stringify(res)) });
        if (stopping) await new Promise((r) => setTimeout(r, 100)); // keep working through the outage, not only its first instant
      }
    };
    working.push(worker(), worker());
  }
  await Promise.all(working);
  d.proxy.onForward = undefined;
  try {
    expect(stopping, 'the master was stopped').toBeDefined();
    await stopping;
    const refusedVictim = outcome.get(victim)!.refused;
    expect(refusedVictim.length, 'writes of the user whose slot was down were refused').toBeGreaterThan(0);
    for (const p of people) {
      const { acknowledged, refused } = outcome.get(p)!;
      const memos = memosIn(p, `${run} `);
      for (const memo of acknowledged)
        expect(
          memos.filter((m) => m === memo),
          memo,
        ).toHaveLength(1);
      for (const r of refused) {
        expect(r.text, r.memo).toMatch(/Nothing was changed|nothing was done/);
        expect(memos, r.memo).not.toContain(r.memo);
      }
    }
  } finally {
    await stopping;
    await cluster.startNode(port);
  }
  // Recovered: the victim's next write goes through (the client reconnects to the master within
  // its backoff), with the same tokens, and what was acknowledged before is still there.
  const memo = `${run} after`;
  const until = Date.now() + 30_000;
  let last: any;
  for (;;) {
    last = await victim.s
      .call('create_transactions', { budget_id: budgetOf(victim).id, transactions: [{ account_id: checking(victim), date: today(), amount: -9.99, memo }] })
      .catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
    if (!last.isError || Date.now() > until) break;
    expect(memosIn(victim, memo)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
  }
  ok(last);
  expect(memosIn(victim, memo)).toEqual([memo]);
  const listed = ok(await victim.s.call('list_transactions', { budget_id: budgetOf(victim).id, since_date: today(), limit: 500 })).transactions.map(
    (t: any) => t.memo,
  );
  for (const m of outcome.get(victim)!.acknowledged) expect(listed).toContain(m);
}, 120_000);
