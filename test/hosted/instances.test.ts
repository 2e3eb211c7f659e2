/**
 * Three hosted instances behind a round-robin proxy, sharing one redis-server, and two users of
 * the sandbox working at once: every call of a client lands on the next instance. What a user
 * sees must not depend on which one answers:
 * a repeated question costs no request, their writes are in the next answer, an instance killed
 * while they work loses nothing acknowledged, and restarting every instance costs at most one
 * delta request per budget.
 */
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
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Instances Test ${i}`, `http://127.0.0.1:${7780 + i}/callback`), { login: sb.email, era: i ? 'modern' : 'legacy' });
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
const today = () => new Date().toISOString().slice(0, 10);
const checking = (p: Person, budgetId: string) => [...p.sb.budgets.find((b) => b.id === budgetId)!.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;

describe('two users across three instances', () => {
  it('a repeated question within the staleness bound costs no request, whichever instance answers', async () => {
    // First asked: each question may cost a request once (the export, the budget list, the user).
    for (const p of people) {
      const budget = p.budgets[0]!.id;
      for (const [name, args] of [['list_accounts', { budget_id: budget }], ['list_budgets', {}], ['get_user', {}], ['get_month', { budget_id: budget, month: 'current' }]] as const) ok(await p.s.call(name, args));
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
        const created = ok(await p.s.call('create_transactions', { budget_id: budget, transactions: [{ account_id: account, date: today(), amount: -12.34, memo }] }));
        const id = created.transaction_ids[0];
        // The next two calls land on the two other instances.
        for (let other = 0; other < 2; other++) {
          const listed = ok(await p.s.call('list_transactions', { budget_id: budget, since_date: today(), limit: 500 }));
          expect(listed.transactions.map((t: any) => t.id), `${p.name}, instance ${other + 1} after write ${i}`).toContain(id);
        }
      }
    }
  });

  it('an instance killed while both users work loses nothing acknowledged and doubles nothing; the others carry on with the same tokens', async () => {
    const run = `kill-${Date.now()}`;
    const outcome = new Map<Person, { acknowledged: string[]; tokens: string }>();
    const working: Promise<void>[] = [];
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
          const res: any = await (i % 3 === 0
            ? p.s.call('create_transactions', { budget_id: budget, transactions: [{ account_id: account, date: today(), amount: -1 - i / 100, memo }] })
            : p.s.call(i % 3 === 1 ? 'list_accounts' : 'list_categories', { budget_id: budget })
          ).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
          if (i % 3 === 0 && !res.isError) mine.acknowledged.push(memo);
        }
      };
      working.push(worker(), worker());
    }
    await new Promise((r) => setTimeout(r, 400));
    await d.kill(1);
    await Promise.all(working);
    try {
      for (const p of people) {
        const { acknowledged, tokens } = outcome.get(p)!;
        // Every acknowledged create is in YNAB exactly once; none is there twice.
        const memos = p.sb.budgets.flatMap((b) => [...b.rec.transactions.values()]).filter((t) => !t.deleted && t.memo?.startsWith(`${run} ${p.name} `)).map((t) => t.memo!);
        for (const memo of acknowledged) expect(memos.filter((m) => m === memo), memo).toHaveLength(1);
        expect(new Set(memos).size).toBe(memos.length);
        expect(acknowledged.length, p.name).toBeGreaterThan(5);
        // No new sign-in was needed.
        expect(p.s.provider.tokens()!.access_token).toBe(tokens);
        ok(await p.s.call('list_accounts', { budget_id: p.budgets[0]!.id }));
      }
    } finally {
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
    for (const r of await Promise.all(people.flatMap((p) => p.budgets.flatMap((b) => [0, 1, 2].map(() => p.s.call('list_accounts', { budget_id: b.id })))))) ok(r);
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
