/**
 * Issue 57, item 4: what this server reconciled counts as reconciled. YNAB's API cannot set an
 * account's last_reconciled_at, so the server records when reconcile_account reconciled each
 * account, per user, in its state store (the file store, and a real redis-server as hosted mode
 * keeps it). Through a real MCP client: an account needs_attention calls "not reconciled for
 * 30+ days" is reconciled through the tool; then needs_attention, the alerts (the resource's open
 * alerts and the tool) and the next week's digest no longer count it, while the accounts they
 * still name are exactly those the API's raw data and the date recorded say; the answer gives
 * the date and says YNAB's app will still show the old one; undone, the reconcile no longer
 * counts. Three seeds, each today on the middle of a month and on the first of one.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths } from '../../src/api/dates.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { ReconciledDates } from '../../src/sync/reconciled.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
/** Today, in turn: the middle of this month and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
const CASES = ['test', 'reconcile', 'candidates-b'].flatMap((seed) => DATES.map((date) => [seed, date] as const));
const sum = (xs: readonly { amount: number }[]) => xs.reduce((n, x) => n + x.amount, 0);

interface Raw {
  budget: string;
  accounts: any[];
  transactions: any[];
}

async function raw(h: McpHarness): Promise<Raw> {
  const budget = h.sb.state.budgets[0]!.id;
  const accounts = (await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted);
  const transactions = (await h.sb.get(`/budgets/${budget}/transactions?since_date=1990-01-01`)).body.data.transactions.filter((t: any) => !t.deleted);
  return { budget, accounts, transactions };
}

/**
 * The names of the open budget accounts in use not reconciled for 30 days or more, written out
 * here: the later of the API's last_reconciled_at and the time recorded for `here` counts.
 */
function staleNames(r: Raw, today: string, here: Record<string, string> = {}): string[] {
  const cutoff = addDays(today, -30);
  const used = new Set(r.transactions.map((t) => t.account_id));
  const last = (a: any) =>
    [a.last_reconciled_at, here[a.id]]
      .filter(Boolean)
      .sort((x, y) => Date.parse(y) - Date.parse(x))[0]
      ?.slice(0, 10) ?? '';
  return r.accounts
    .filter((a) => !a.closed && a.on_budget && used.has(a.id) && last(a) < cutoff)
    .map((a) => a.name)
    .sort();
}

/** The alerts resource read to its end, page by page (each read after the last one's cursor): the alerts whose condition still holds. */
const openAlerts = async (h: McpHarness, budget: string) => {
  const rows: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const uri = `ynab://budgets/${budget}/alerts${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`;
    const text = ((await h.client.readResource({ uri })).contents[0] as { text: string }).text;
    const answer = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
    rows.push(...answer.alerts);
    if (!answer.remaining) return rows.filter((a) => a.still_open);
    cursor = answer.cursor;
  }
  throw new Error('the alerts resource did not end within 50 pages');
};
const dueNames = (alerts: any[]) =>
  alerts
    .filter((a) => a.type === 'account.reconcile_due')
    .map((a) => a.account)
    .sort();

function suite(store: () => Promise<RedisStateStore | undefined>) {
  describe.each(CASES)('seed %s on %s', (seed, date) => {
    let h: McpHarness;
    let s: RedisStateStore | undefined;
    beforeAll(async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
      s = await store();
      h = await mcpHarness({ sandbox: { seed }, flags: { toolsets: 'all' }, maxStalenessMs: 0, ...(s ? { stack: { store: s } } : {}) });
    }, 60_000);
    afterAll(async () => {
      await h?.close();
      vi.useRealTimers();
    });

    it('a reconcile through the tool: needs_attention, the alerts and the digest no longer call the account not reconciled', async () => {
      const before = await raw(h);
      const stale = staleNames(before, date);
      expect(stale.length).toBeGreaterThan(0);
      // As the tools say before: needs_attention and the alerts name exactly these.
      const attention = (res: any) => (res.attention.find((k: any) => k.kind === 'unreconciled')?.examples ?? []).map((e: any) => e.name).sort();
      expect(attention(ok(await h.call('needs_attention', { kind: 'unreconciled' })))).toEqual(stale);
      const first = ok(await h.call('alerts'));
      expect(dueNames(first.alerts)).toEqual(stale);

      // The account: Everyday Checking where it is stale, else the first; reconciled at its cleared balance.
      const name = stale.includes('Everyday Checking') ? 'Everyday Checking' : stale[0]!;
      const account = before.accounts.find((a) => a.name === name);
      const cleared = sum(before.transactions.filter((t) => t.account_id === account.id && t.date <= date && t.cleared !== 'uncleared'));
      const args = { account_id: name, statement_balance_milliunits: cleared, statement_date: date };
      let done = ok(await h.call('reconcile_account', args));
      if (done.confirm_token) done = ok(await h.call('reconcile_account', { ...args, confirm_token: done.confirm_token }));
      expect(done.difference).toBe(0);
      expect(done.last_reconciled_on).toBe(date);
      const ynab = account.last_reconciled_at?.slice(0, 10);
      expect(done.note).toContain(`Recorded here as reconciled on ${date}`);
      expect(done.note).toContain(
        ynab ? `YNAB's own app will still show its previous date, ${ynab}` : "YNAB's own app will still show the account as never reconciled",
      );
      // Kept in the store the stack was given (Redis: the one hosted mode shares), under the user's identity.
      const kept = await (s ?? (await h.state.ready()).store).list('reconciled/');
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatch(new RegExp(`^reconciled/[^/]+/${before.budget}\\.json$`));
      // YNAB's date is as it was: only this server knows.
      const after = await raw(h);
      expect(after.accounts.find((a) => a.id === account.id).last_reconciled_at).toBe(account.last_reconciled_at ?? null);
      const here = { [account.id]: new Date(Date.parse(`${date}T12:00:00Z`)).toISOString() };
      const still = staleNames(after, date, here);
      expect(still).toEqual(stale.filter((n) => n !== name));

      expect(attention(ok(await h.call('needs_attention', { kind: 'unreconciled' })))).toEqual(still);
      const compact = ok(await h.call('needs_attention', {})).attention.find((k: any) => k.kind === 'unreconciled');
      expect(compact?.count ?? 0).toBe(still.length);
      expect(dueNames(await openAlerts(h, before.budget))).toEqual(still);
      expect(dueNames(ok(await h.call('alerts')).alerts)).not.toContain(name);

      // A week on: the digest's open conditions count the accounts still stale, not this one.
      const week = addDays(date, 7);
      vi.setSystemTime(Date.parse(`${week}T12:00:00Z`));
      const later = await raw(h);
      const digestStill = staleNames(later, week, here);
      expect(digestStill).not.toContain(name);
      const next = ok(await h.call('alerts'));
      const digest = next.alerts.find((a: any) => a.type === 'digest.weekly');
      expect(digest, JSON.stringify(next.alerts.map((a: any) => a.type))).toBeDefined();
      expect(digest.open['account.reconcile_due'] ?? 0).toBe(digestStill.length);
      expect(dueNames(next.alerts)).not.toContain(name);
      expect(dueNames(await openAlerts(h, before.budget))).toEqual(digestStill);

      // 31 days on, the account is due again: the date given is this server's, beside the one YNAB's app shows.
      const month = addDays(date, 31);
      vi.setSystemTime(Date.parse(`${month}T12:00:00Z`));
      const due = ok(await h.call('needs_attention', { kind: 'unreconciled' })).attention.find((k: any) => k.kind === 'unreconciled');
      expect(due.examples.find((e: any) => e.name === name)).toMatchObject({ last_reconciled_on: date, ynab_app_shows: ynab ?? 'never' });
      expect(due.examples.map((e: any) => e.name).sort()).toEqual(staleNames(await raw(h), month, here));

      // Undone, the reconcile no longer counts: YNAB's date does again.
      expect(done.change_id).toBeDefined();
      ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
      const undone = staleNames(await raw(h), month);
      expect(undone).toContain(name);
      expect(attention(ok(await h.call('needs_attention', { kind: 'unreconciled' })))).toEqual(undone);
      expect(dueNames(await openAlerts(h, before.budget))).toEqual(undone);
    }, 60_000);
  });
}

describe('what this server reconciled, kept in the file store', () => {
  suite(async () => undefined);
});

describe('what this server reconciled, kept in Redis', { tags: ['redis'] }, () => {
  let redis: RunningRedis;
  const stores: RedisStateStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => undefined);
    await redis?.stop();
  });
  const connect = async () => {
    const s = await RedisStateStore.connect(redis.url, { prefix: `t${randomBytes(4).toString('hex')}:` });
    stores.push(s);
    return s;
  };

  it("per user: one user's reconcile is not another's, and the later time is kept", async () => {
    const store = await connect();
    const alice = new ReconciledDates(store, 'alice');
    const bob = new ReconciledDates(store, 'bob');
    await alice.record('b1', 'acc1', '2026-11-20T10:00:00.000Z');
    await alice.record('b1', 'acc1', '2026-11-02T10:00:00.000Z');
    expect(await alice.get('b1')).toEqual({ acc1: '2026-11-20T10:00:00.000Z' });
    expect(await bob.get('b1')).toEqual({});
    await Promise.all([alice.record('b1', 'acc2', '2026-11-21T10:00:00.000Z'), alice.record('b1', 'acc3', '2026-11-22T10:00:00.000Z')]);
    expect(Object.keys(await alice.get('b1')).sort()).toEqual(['acc1', 'acc2', 'acc3']);
  });

  suite(connect);
});
