// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Three hosted instances behind a round-robin proxy, sharing one redis-server, and two users of
 * the sandbox working at once: every call of a client lands on the next instance. What a user
 * sees must not depend on which one answers:
 * a repeated question costs no request, their writes are in the next answer, a confirm token or
 * an undo works on any instance, Redis holds nothing of theirs in the clear, an instance killed
 * with their calls in flight loses nothing acknowledged, and restarting every instance costs at
 * most one delta request per budget.
 */
import { gunzipSync, constants as zlibConstants } from 'node:zlib';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, type Deployment, type SignedIn, startDeployment, type UpstreamRequest } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

/** Answers from a copy at most this old (s): short, so the restart below happens past it. */
const STALENESS_S = 10;

interface Person {
  name: string;
  s: SignedIn;
  sb: SandboxUser;
  budgets: { id: string; name: string }[];
}

let d: Deployment;
let people: Person[] = [];

beforeAll(async () => {
  d = await startDeployment({ instances: 3, sandbox: { users: 2 }, args: ['--max-staleness', String(STALENESS_S)] });
  for (const [i, sb] of d.sandbox.state.users.entries()) {
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Instances Test ${i}`, `http://127.0.0.1:${7780 + i}/callback`), {
      login: sb.email,
      era: i ? 'modern' : 'legacy',
    });
    people.push({ name: sb.email, s, sb, budgets: ok(await s.call('list_budgets')).budgets });
  }
});

afterAll(async () => {
  for (const p of people) await p.s.close().catch(() => undefined);
  await d?.close();
});

const apiRequests = (from: number): UpstreamRequest[] => d.upstream.requests.slice(from).filter((r) => r.url.startsWith('/v1/'));
/** Requests for a budget's export (full or delta), by budget id. */
const exportsOf = (requests: UpstreamRequest[], budgetId: string) => requests.filter((r) => new RegExp(`^/v1/(budgets|plans)/${budgetId}(\\?|$)`).test(r.url));
/**
 * Every key of a Redis and every value, whatever its type, as text: each value as stored (latin1,
 * so any byte sequence is kept) and, wherever gzip data starts inside it, unpacked as well (a
 * replica that went to Redis compressed but not encrypted would otherwise hide its names).
 */
async function dumpRedis(url: string): Promise<string[]> {
  const raw = createClient({ url, commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } });
  await raw.connect();
  const texts: string[] = [];
  const take = (v: unknown): void => {
    if (Buffer.isBuffer(v)) {
      texts.push(v.toString('latin1'), v.toString('utf8'));
      for (let i = v.indexOf(GZIP); i >= 0; i = v.indexOf(GZIP, i + 1)) {
        try {
          texts.push(gunzipSync(v.subarray(i), { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString('utf8'));
        } catch {
          // not gzip after all (ciphertext that happens to hold the bytes)
        }
      }
    } else if (Array.isArray(v)) v.forEach(take);
    else if (v instanceof Map) for (const [k, x] of v) (take(k), take(x));
    else if (v && typeof v === 'object') Object.values(v).forEach(take);
    else if (v !== null && v !== undefined) texts.push(String(v));
  };
  try {
    const keys: Buffer[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await raw.sendCommand(['SCAN', cursor, 'COUNT', '1000'])) as [Buffer, Buffer[]];
      cursor = next.toString();
      keys.push(...batch);
    } while (cursor !== '0');
    for (const k of keys) {
      take(k);
      const type = String(await raw.sendCommand(['TYPE', k]));
      const read: Record<string, (string | Buffer)[]> = {
        string: ['GET', k],
        hash: ['HGETALL', k],
        list: ['LRANGE', k, '0', '-1'],
        set: ['SMEMBERS', k],
        zset: ['ZRANGE', k, '0', '-1', 'WITHSCORES'],
        stream: ['XRANGE', k, '-', '+'],
      };
      if (!read[type]) throw new Error(`a Redis key of type ${type} the dump cannot read`);
      take(await raw.sendCommand(read[type]!));
    }
  } finally {
    await raw.close();
  }
  return texts;
}

const GZIP = Buffer.from([0x1f, 0x8b, 0x08]);
const today = () => new Date().toISOString().slice(0, 10);
const checking = (p: Person, budgetId: string) =>
  [...p.sb.budgets.find((b) => b.id === budgetId)!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;

describe('two users across three instances', () => {
  it('a repeated question within the staleness bound costs no request, whichever instance answers', async () => {
    // First asked: each question may cost a request once (the export, the budget list, the user).
    for (const p of people) {
      const budget = p.budgets[0]!.id;
      for (const [name, args] of [
        ['list_accounts', { budget_id: budget }],
        ['list_budgets', {}],
        ['get_user', {}],
        ['get_month', { budget_id: budget, month: 'current' }],
      ] as const)
        ok(await p.s.call(name, args));
    }
    const mark = d.upstream.requests.length;
    const before = new Map(d.proxy.forwarded);
    for (let round = 0; round < 3; round++) {
      for (const p of people) {
        const budget = p.budgets[0]!.id;
        ok(await p.s.call('list_accounts', { budget_id: budget }));
        ok(await p.s.call('list_budgets'));
        ok(await p.s.call('get_user'));
        ok(await p.s.call('get_month', { budget_id: budget, month: 'current' }));
      }
    }
    expect(apiRequests(mark)).toEqual([]);
    // And every instance answered some of them.
    for (const inst of d.instances) expect((d.proxy.forwarded.get(inst!.url) ?? 0) - (before.get(inst!.url) ?? 0)).toBeGreaterThanOrEqual(6);
  });

  it('a write through one instance is in the next answer of every other', async () => {
    for (const p of people) {
      const budget = p.budgets[0]!.id;
      const account = checking(p, budget);
      for (let i = 0; i < 3; i++) {
        const memo = `read-your-writes ${i} ${Date.now()}`;
        // Three alike on purpose (the duplicate guard would hold the second).
        const created = ok(
          await p.s.call('create_transactions', {
            budget_id: budget,
            allow_duplicate: true,
            transactions: [{ account_id: account, date: today(), amount: -12.34, memo }],
          }),
        );
        const id = created.transaction_ids[0];
        // The next two calls land on the two other instances.
        for (let other = 0; other < 2; other++) {
          const listed = ok(await p.s.call('list_transactions', { budget_id: budget, since_date: today(), limit: 500 }));
          expect(
            listed.transactions.map((t: any) => t.id),
            `${p.name}, instance ${other + 1} after write ${i}`,
          ).toContain(id);
        }
      }
    }
  });

  it('a delete previewed on one instance is confirmed through another, once; undo_change works across instances too', async () => {
    const p = people[0]!;
    const budget = p.budgets[0]!.id;
    // One client per instance, with the same tokens: each call below goes to the instance named.
    const on = await Promise.all(d.instances.map((inst) => signIn(`${inst!.url}/mcp`, p.s.provider)));
    try {
      const memo = `confirm across ${Date.now()}`;
      const id = ok(
        await on[0]!.call('create_transactions', {
          budget_id: budget,
          transactions: [{ account_id: checking(p, budget), date: today(), amount: -4.56, memo }],
        }),
      ).transaction_ids[0];
      const record = () => p.sb.budgets.find((b) => b.id === budget)!.rec.transactions.get(id)!;
      const preview = ok(await on[0]!.call('delete_transaction', { budget_id: budget, transaction_id: id }));
      expect(preview.preview).toBe(true);
      expect(record().deleted).toBe(false);
      const done = ok(await on[1]!.call('delete_transaction', { budget_id: budget, transaction_id: id, confirm_token: preview.confirm_token }));
      expect(done.transaction).toMatchObject({ id, deleted: true });
      expect(record().deleted).toBe(true);
      // The token was spent for every instance.
      const again: any = await on[2]!.call('delete_transaction', { budget_id: budget, transaction_id: id, confirm_token: preview.confirm_token });
      expect(again.isError).toBe(true);
      expect(again.content[0].text).toMatch(/confirm_token was already used/);
      // The change is undone through a third instance, previewed on it and confirmed on the first.
      const undoPreview = ok(await on[2]!.call('undo_change', { budget_id: budget, change_id: done.change_id }));
      expect(undoPreview.preview).toBe(true);
      ok(await on[0]!.call('undo_change', { budget_id: budget, change_id: done.change_id, confirm_token: undoPreview.confirm_token }));
      const back = p.sb.budgets.find((b) => b.id === budget)!.rec.transactions;
      expect([...back.values()].filter((t) => !t.deleted && t.memo === memo)).toHaveLength(1);
      // And every instance answers with it back.
      for (const c of on)
        expect(ok(await c.call('list_transactions', { budget_id: budget, since_date: today(), limit: 500 })).transactions.map((t: any) => t.memo)).toContain(
          memo,
        );
    } finally {
      for (const c of on) await c.close();
    }
  });

  it('Redis holds no budget name, payee name, memo or token in the clear, in any key or value of any type', async () => {
    const p = people[1]!;
    const budget = p.budgets[0]!.id;
    // Real use first: a write with a memo and a payee, a held delete (a confirm token), lists.
    const memo = `clear text canary ${Date.now()}`;
    const payee = `Canary Payee ${Date.now()}`;
    const id = ok(
      await p.s.call('create_transactions', {
        budget_id: budget,
        transactions: [{ account_id: checking(p, budget), date: today(), amount: -7.89, payee_name: payee, memo }],
      }),
    ).transaction_ids[0];
    ok(await p.s.call('delete_transaction', { budget_id: budget, transaction_id: id }));
    for (const q of people) {
      for (const b of q.budgets) {
        ok(await q.s.call('list_payees', { budget_id: b.id, limit: 5 }));
        ok(await q.s.call('list_transactions', { budget_id: b.id, since_date: today(), limit: 5 }));
      }
    }
    const dump = await dumpRedis(d.redis.url);
    expect(dump.length).toBeGreaterThan(50);
    const needles = new Set<string>([memo, payee]);
    for (const q of people) {
      for (const b of q.sb.budgets) {
        needles.add(b.rec.name);
        for (const py of b.rec.payees.values()) if (py.name.length >= 6 && !py.name.startsWith('Transfer :')) needles.add(py.name);
        for (const t of b.rec.transactions.values()) if (t.memo && t.memo.length >= 6) needles.add(t.memo);
      }
      const t = q.s.provider.tokens()!;
      needles.add(t.access_token);
      needles.add(t.refresh_token!);
    }
    for (const g of d.sandbox.tokens.snapshot().grants) for (const t of [g.access_token, g.refresh_token]) if (t) needles.add(t);
    expect(needles.size).toBeGreaterThan(20);
    const found = [...needles].filter((n) => dump.some((text) => text.includes(n)));
    expect(found).toEqual([]);
  });

  it('an instance killed while calls are in flight there loses nothing acknowledged and doubles nothing; the others carry on with the same tokens', async () => {
    const run = `kill-${Date.now()}`;
    const outcome = new Map<Person, { acknowledged: string[]; tokens: string }>();
    const working: Promise<void>[] = [];
    // The kill: the moment the second create_transactions has been sent to instance 1, before it
    // can have answered (SIGKILL, as a crash; the proxy keeps sending there until refused).
    const victim = d.instances[1]!.url;
    let creates = 0;
    let killing: Promise<void> | undefined;
    let inFlightAtKill = 0;
    d.proxy.onForward = (target, body) => {
      if (killing || target !== victim || !body.includes('"create_transactions"') || ++creates < 2) return;
      inFlightAtKill = d.proxy.inFlight.get(target) ?? 0;
      killing = d.kill(1);
    };
    for (const p of people) {
      const budget = p.budgets[0]!.id;
      const account = checking(p, budget);
      const mine = { acknowledged: [] as string[], tokens: p.s.provider.tokens()!.access_token };
      outcome.set(p, mine);
      let n = 0;
      const worker = async () => {
        while (n < 30) {
          const i = n++;
          const memo = `${run} ${p.name} ${i}`;
          const res: any = await (
            i % 3 === 0
              ? p.s.call('create_transactions', { budget_id: budget, transactions: [{ account_id: account, date: today(), amount: -1 - i / 100, memo }] })
              : p.s.call(i % 3 === 1 ? 'list_accounts' : 'list_categories', { budget_id: budget })
          ).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
          if (i % 3 === 0 && !res.isError) mine.acknowledged.push(memo);
        }
      };
      working.push(worker(), worker());
    }
    await Promise.all(working);
    d.proxy.onForward = undefined;
    try {
      // It was killed mid-work: with a create of this run sent to it and not yet answered.
      expect(killing, 'the instance was killed').toBeDefined();
      await killing;
      expect(inFlightAtKill).toBeGreaterThanOrEqual(1);
      expect(d.instances[1]).toBeUndefined();
      for (const p of people) {
        const { acknowledged, tokens } = outcome.get(p)!;
        // Every acknowledged create is in YNAB exactly once; none is there twice.
        const memos = p.sb.budgets
          .flatMap((b) => [...b.rec.transactions.values()])
          .filter((t) => !t.deleted && t.memo?.startsWith(`${run} ${p.name} `))
          .map((t) => t.memo!);
        for (const memo of acknowledged)
          expect(
            memos.filter((m) => m === memo),
            memo,
          ).toHaveLength(1);
        expect(new Set(memos).size).toBe(memos.length);
        expect(acknowledged.length, p.name).toBeGreaterThan(5);
        // No new sign-in was needed.
        expect(p.s.provider.tokens()!.access_token).toBe(tokens);
        ok(await p.s.call('list_accounts', { budget_id: p.budgets[0]!.id }));
      }
    } finally {
      await killing;
      await d.start(1);
    }
  });

  it('restarting every instance costs each user at most one delta request per budget, and no new sign-in', async () => {
    for (const p of people) for (const b of p.budgets) ok(await p.s.call('list_accounts', { budget_id: b.id }));
    // Past the staleness bound, so that the copies in Redis need a delta after the restart.
    await new Promise((r) => setTimeout(r, (STALENESS_S + 1) * 1000));
    for (let i = 0; i < 3; i++) await d.kill(i);
    await Promise.all([0, 1, 2].map((i) => d.start(i)));
    const mark = d.upstream.requests.length;
    const tokensBefore = people.map((p) => p.s.provider.tokens()!.access_token);
    // Every budget of both users asked about on every instance, at once first: the instances must
    // not each sync it.
    for (const r of await Promise.all(people.flatMap((p) => p.budgets.flatMap((b) => [0, 1, 2].map(() => p.s.call('list_accounts', { budget_id: b.id }))))))
      ok(r);
    for (let round = 0; round < 2; round++) {
      for (const p of people) {
        for (const b of p.budgets) {
          ok(await p.s.call('list_categories', { budget_id: b.id }));
          ok(await p.s.call('get_month', { budget_id: b.id, month: 'current' }));
        }
      }
    }
    const after = apiRequests(mark);
    const all = people.flatMap((p) => p.budgets.map((b) => ({ ...b, who: p.name })));
    for (const b of all) {
      const exports = exportsOf(after, b.id);
      expect(exports.length, `${b.who} ${b.name}: ${exports.map((r) => r.url).join(', ')}`).toBeLessThanOrEqual(1);
      for (const r of exports) expect(r.url, 'a delta, not a full export').toMatch(/last_knowledge_of_server=\d+/);
    }
    expect(after.filter((r) => !all.some((b) => exportsOf([r], b.id).length))).toEqual([]);
    expect(people.map((p) => p.s.provider.tokens()!.access_token)).toEqual(tokensBefore);
  });
});
