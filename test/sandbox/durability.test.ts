/**
 * Acknowledged means durable: a real `ynab-mcp sandbox --data FILE` child process takes a stream
 * of concurrent writes of every kind (single creates, transfers, batches, updates, deletes,
 * assignments, OAuth code exchanges and refresh-token rotations) and is killed with SIGKILL at a
 * random moment, three times over on the same file. After each restart every write that was
 * answered 2xx is there, and nothing is half there: a transfer has both sides or neither, a batch
 * all of its transactions or none, an update or assignment holds its acknowledged value (or a
 * later one that was applied while its answer was lost).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli, startCli, type Announcement } from './cli-process.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-durable-'));
});

afterAll(async () => {
  await killAllCli();
  rmSync(dir, { recursive: true, force: true });
});

const today = () => new Date().toISOString().slice(0, 10);

async function call(a: Announcement, method: string, path: string, body?: unknown, token = a.access_token) {
  const res = await fetch(`${a.base_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function form(url: string, params: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  return { status: res.status, body: (await res.json()) as any };
}

/** What was acknowledged, and what was sent but not (yet) answered, across all rounds. */
interface Ledger {
  created: Map<string, string>; // transaction id -> memo
  transfers: Map<string, string>; // memo -> id of the checking side
  batches: Set<string>; // batch tags with a 2xx answer
  deleted: Set<string>;
  /** Deletes sent and not answered: applied or not. */
  deleting: Set<string>;
  /** Transaction id -> memos acknowledged in order, and the one in flight when the process died. */
  memos: Map<string, { acked: string[]; inFlight: string | null }>;
  assigned: { acked: number[]; inFlight: number | null };
  /** OAuth grants answered 2xx: the first access token, and the one its refresh token was rotated to. */
  grants: { first: string; rotated: string | null; rotating: boolean }[];
}

describe('--data survives SIGKILL', () => {
  it('keeps every write answered 2xx, and nothing half-applied, through three kills at random moments', async () => {
    const file = join(dir, 'sandbox.json');
    const ledger: Ledger = {
      created: new Map(),
      transfers: new Map(),
      batches: new Set(),
      deleted: new Set(),
      deleting: new Set(),
      memos: new Map(),
      assigned: { acked: [], inFlight: null },
      grants: [],
    };
    let ids: { budget: string; checking: string; savings: string; category: string } | undefined;

    for (let round = 1; round <= 3; round++) {
      const p = startCli(['sandbox', '--port', '0', '--data', file, '--rate-limit', '1000000', '--seed', 'durable']);
      const a = await p.announcement;
      const b = (path: string) => `/plans/${ids!.budget}${path}`;
      if (!ids) {
        const budget = (await call(a, 'GET', '/plans')).body.data.plans[0].id;
        const accounts = (await call(a, 'GET', `/plans/${budget}/accounts`)).body.data.accounts;
        const groups = (await call(a, 'GET', `/plans/${budget}/categories`)).body.data.category_groups;
        ids = {
          budget,
          checking: accounts.find((x: any) => x.name === 'Everyday Checking').id,
          savings: accounts.find((x: any) => x.name === 'Rainy Day Savings').id,
          category: groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Hobbies').id,
        };
      }
      await verify(a, b, ledger, ids);

      // The stream: six writers, each sending one write after another, until the kill.
      let stop = false;
      const savingsPayee = (await call(a, 'GET', `${b('/accounts')}/${ids.savings}`)).body.data.account.transfer_payee_id;
      let n = 0;
      const next = () => `r${round}-${++n}`;
      const writers = [
        async () => {
          const memo = next();
          const res = await call(a, 'POST', b('/transactions'), { transaction: { account_id: ids!.checking, date: today(), amount: -1_000, memo } });
          if (res.status === 201) ledger.created.set(res.body.data.transaction.id, memo);
        },
        async () => {
          const memo = `transfer ${next()}`;
          const res = await call(a, 'POST', b('/transactions'), {
            transaction: { account_id: ids!.checking, date: today(), amount: -2_000, payee_id: savingsPayee, memo },
          });
          if (res.status === 201) ledger.transfers.set(memo, res.body.data.transaction.id);
        },
        async () => {
          const tag = `batch ${next()}`;
          const transactions = [0, 1, 2].map((i) => ({ account_id: ids!.checking, date: today(), amount: -100 - i, memo: `${tag} #${i}` }));
          const res = await call(a, 'POST', b('/transactions'), { transactions });
          if (res.status === 201) ledger.batches.add(tag);
        },
        async () => {
          const id = [...ledger.created.keys()].filter((x) => !ledger.deleted.has(x)).at(-1);
          if (!id) return;
          const memo = `edited ${next()}`;
          const entry = ledger.memos.get(id) ?? { acked: [], inFlight: null };
          ledger.memos.set(id, entry);
          entry.inFlight = memo;
          const res = await call(a, 'PUT', b(`/transactions/${id}`), { transaction: { memo } });
          if (res.status === 200) {
            entry.acked.push(memo);
            entry.inFlight = null;
          }
        },
        async () => {
          const id = [...ledger.created.keys()].find((x) => !ledger.deleted.has(x) && !ledger.deleting.has(x) && !ledger.memos.has(x));
          if (!id) return;
          ledger.deleting.add(id);
          const res = await call(a, 'DELETE', b(`/transactions/${id}`));
          if (res.status === 200) {
            ledger.deleted.add(id);
            ledger.deleting.delete(id);
          }
        },
        async () => {
          const budgeted = 1_000 * (ledger.assigned.acked.length + 1);
          ledger.assigned.inFlight = budgeted;
          const res = await call(a, 'PATCH', b(`/months/current/categories/${ids!.category}`), { category: { budgeted } });
          if (res.status === 200) {
            ledger.assigned.acked.push(budgeted);
            ledger.assigned.inFlight = null;
          }
        },
        async () => {
          // An OAuth code exchange, then a rotation of its refresh token.
          const auth = await fetch(
            `${a.app_url}/oauth/authorize?${new URLSearchParams({ client_id: a.oauth_client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code' })}`,
            { redirect: 'manual' },
          );
          const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
          const token = await form(`${a.app_url}/oauth/token`, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: 'http://127.0.0.1:9/cb',
            client_id: a.oauth_client_id,
            client_secret: a.oauth_client_secret,
          });
          if (token.status !== 200) return;
          const grant = { first: token.body.access_token as string, rotated: null as string | null, rotating: true };
          ledger.grants.push(grant);
          const rotated = await form(`${a.app_url}/oauth/token`, {
            grant_type: 'refresh_token',
            refresh_token: token.body.refresh_token,
            client_id: a.oauth_client_id,
            client_secret: a.oauth_client_secret,
          });
          if (rotated.status === 200) {
            grant.rotated = rotated.body.access_token;
            grant.rotating = false;
          }
        },
      ];
      const streams = writers.map(async (write) => {
        while (!stop) {
          try {
            await write();
          } catch {
            return; // the process is gone: this write was not answered
          }
          // A writer with nothing to do yet must not starve the timer that kills the process.
          await new Promise((r) => setImmediate(r));
        }
      });
      // Killed once the round has had a random number of answers, a random moment later.
      const acked = () => ledger.created.size + ledger.transfers.size + ledger.batches.size + ledger.grants.length;
      const start = acked();
      const target = start + 10 + Math.floor(Math.random() * 25);
      while (acked() < target) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      p.child.kill('SIGKILL');
      stop = true;
      await Promise.all(streams);
      expect((await p.exited).signal).toBe('SIGKILL');
    }
    expect(ledger.created.size + ledger.transfers.size + ledger.batches.size).toBeGreaterThan(20);
    expect(ledger.grants.length).toBeGreaterThan(0);

    const p = startCli(['sandbox', '--port', '0', '--data', file, '--rate-limit', '1000000']);
    const a = await p.announcement;
    await verify(a, (path) => `/plans/${ids!.budget}${path}`, ledger, ids!);
    expect((await p.stop()).code).toBe(0);
    expect(existsSync(`${file}.journal`)).toBe(true);
  });
});

describe('a kill inside the fold', () => {
  it('lands while the snapshot is half-written: every acknowledged write survives, and the next start removes the half-written file', async () => {
    const file = join(dir, 'folding.json');
    const made: string[] = [];
    let landed = false;
    // A large budget makes the snapshot slow enough to write that the kill can land inside it.
    for (let attempt = 1; attempt <= 5 && !landed; attempt++) {
      const p = startCli(['sandbox', '--port', '0', '--data', file, '--rate-limit', '1000000', '--seed', 'fold', '--transactions', '30000']);
      const a = await p.announcement;
      const budget = (await call(a, 'GET', '/plans')).body.data.plans[0].id;
      const checking = (await call(a, 'GET', `/plans/${budget}/accounts`)).body.data.accounts.find((x: any) => x.name === 'Everyday Checking').id;
      // Armed after the start's own fold: the next temp file is the quiet-time fold of these writes.
      const temps = new Set<string>();
      const watcher = watch(dir, (_event, name) => {
        if (!name || !/^folding\.json\.\d+\.[0-9a-f]{8}\.tmp$/.test(name) || temps.has(name)) return;
        temps.add(name);
        p.child.kill('SIGKILL');
      });
      try {
        for (let i = 0; i < 20; i++) {
          const memo = `fold ${attempt}-${i}`;
          const res = await call(a, 'POST', `/plans/${budget}/transactions`, { transaction: { account_id: checking, date: today(), amount: -1_000, memo } });
          expect(res.status).toBe(201);
          made.push(res.body.data.transaction.id);
        }
        // Quiet now: the fold starts within about a second, and its temp file brings the kill.
        expect((await p.exited).signal).toBe('SIGKILL');
      } finally {
        watcher.close();
      }
      // The kill landed inside the fold when the temp file is still there (it is renamed over the file at the end).
      landed = readdirSync(dir).some((n) => temps.has(n));
    }
    expect(landed).toBe(true);

    const p = startCli(['sandbox', '--port', '0', '--data', file, '--rate-limit', '1000000']);
    const a = await p.announcement;
    const budget = (await call(a, 'GET', '/plans')).body.data.plans[0].id;
    const all: any[] = (await call(a, 'GET', `/plans/${budget}/transactions?since_date=2000-01-01`)).body.data.transactions;
    const ids = new Set(all.map((t) => t.id));
    for (const id of made) expect(ids.has(id), id).toBe(true);
    expect(readdirSync(dir).filter((n) => n.startsWith('folding.json.') && n.endsWith('.tmp'))).toEqual([]);
    expect(p.stderr).toMatch(/removed folding\.json\.\d+\.[0-9a-f]{8}\.tmp, a snapshot left half-written/);
    expect((await p.stop()).code).toBe(0);
  }, 180_000);
});

async function verify(a: Announcement, b: (path: string) => string, ledger: Ledger, ids: { checking: string; savings: string; category: string }) {
  const all: any[] = (await call(a, 'GET', b('/transactions?since_date=2000-01-01'))).body.data.transactions;
  const byId = new Map(all.map((t) => [t.id, t]));
  for (const [id, memo] of ledger.created) {
    if (ledger.deleted.has(id)) {
      expect(byId.has(id), `deleted ${memo}`).toBe(false);
      continue;
    }
    const t = byId.get(id);
    if (!t && ledger.deleting.has(id)) continue; // its delete was applied, the answer lost
    expect(t, `created ${memo}`).toBeDefined();
    const edits = ledger.memos.get(id);
    const allowed = edits ? [edits.acked.at(-1) ?? memo, ...(edits.inFlight ? [edits.inFlight] : [])] : [memo];
    expect(allowed, `memo of ${memo}`).toContain(t.memo);
  }
  // Transfers: both sides or neither, for every transfer in the budget; the acknowledged ones are there.
  const transfers = all.filter((t) => t.memo?.startsWith('transfer '));
  for (const t of transfers.filter((x) => x.account_id === ids.checking)) {
    const other = byId.get(t.transfer_transaction_id);
    expect(other, t.memo).toMatchObject({ account_id: ids.savings, amount: -t.amount, transfer_transaction_id: t.id });
  }
  expect(transfers.filter((t) => t.account_id === ids.savings).length).toBe(transfers.filter((t) => t.account_id === ids.checking).length);
  for (const [memo, id] of ledger.transfers) expect(byId.get(id)?.memo, memo).toBe(memo);
  // Batches: all three or none.
  const tags = new Map<string, number>();
  for (const t of all) if (t.memo?.startsWith('batch ')) tags.set(t.memo.split(' #')[0], (tags.get(t.memo.split(' #')[0]) ?? 0) + 1);
  for (const [tag, count] of tags) expect(count, tag).toBe(3);
  for (const tag of ledger.batches) expect(tags.get(tag), tag).toBe(3);
  // The assignment holds its last acknowledged value, or the one in flight.
  const category = (await call(a, 'GET', b(`/months/current/categories/${ids.category}`))).body.data.category;
  if (ledger.assigned.acked.length) {
    expect([ledger.assigned.acked.at(-1), ...(ledger.assigned.inFlight ? [ledger.assigned.inFlight] : [])]).toContain(category.budgeted);
  }
  // OAuth: a grant answered 2xx works; once its rotation was answered, the new token works and
  // the old one was revoked; a rotation in flight may have happened or not.
  for (const g of ledger.grants) {
    const first = (await call(a, 'GET', '/user', undefined, g.first)).status;
    if (g.rotated) {
      expect(first).toBe(401);
      expect((await call(a, 'GET', '/user', undefined, g.rotated)).status).toBe(200);
    } else expect(g.rotating ? [200, 401] : [200]).toContain(first);
  }
}
