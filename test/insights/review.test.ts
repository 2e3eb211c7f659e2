/**
 * review_transactions through a real MCP client against the sandbox (issue 26 item 1): the queue
 * (unapproved, uncategorized or both; by account and date), newest first, paged, with the count
 * and total of the whole queue and how many rows have a high-confidence suggestion; 25 compact
 * rows in at most 4 KB of text; suggestions that never name a hidden category nor a card payment
 * category for a purchase, that count a split once per line and that borrow a lookalike payee's
 * history for a new payee; and each flag, on data planted through the API. Expectations are
 * computed from the API's raw answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { plantQueue } from '../helpers/review-queue.js';
import { lookUp } from '../../src/mcp/output/vocabulary.js';
import { raw, rawLines, todayUtc, usd, type Raw } from './raw.js';

let h: McpHarness;
const u = Date.now().toString(36);
const today = todayUtc();
const day = (n: number) => new Date(Date.parse(today) + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'review' } });
});
afterAll(() => h.close());

/** Transactions waiting for review, as a bank import leaves them (unapproved). */
const create = async (items: Record<string, unknown>[]) =>
  ok(await h.call('create_transactions', { allow_duplicate: true, transactions: items.map((t) => ({ date: today, approved: false, ...t })) }))
    .transaction_ids as string[];

/** Every row of the queue in full detail (one page of up to 500). */
const everyRow = async (args: Record<string, unknown> = {}) => ok(await h.call('review_transactions', { ...args, detail: 'full', limit: 500 }));
const rowOf = async (id: string, args: Record<string, unknown> = {}) => (await everyRow(args)).transactions.find((t: any) => t.id === id);

const newestFirst = (a: any, b: any) => (a.date > b.date ? -1 : a.date < b.date ? 1 : a.id < b.id ? -1 : 1);

/** Transactions YNAB shows as uncategorized (as test/insights/attention.test.ts says it). */
const uncategorized = (r: Raw) =>
  r.transactions.filter(
    (t) =>
      r.account.get(t.account_id)?.on_budget &&
      t.payee_name !== 'Starting Balance' &&
      rawLines(t).some(
        (l) => (!l.category_id || l.category_id === r.uncategorized) && !(l.transfer_account_id && r.account.get(l.transfer_account_id)?.on_budget),
      ),
  );

describe('review_transactions', () => {
  it('lists the unapproved queue newest first, paged, with the count, total and high-confidence count of the whole queue', async () => {
    await create([
      { account_id: 'Everyday Checking', amount: -12.5, payee_name: `Queue A ${u}` },
      { account_id: 'Visa Rewards', amount: -7, payee_name: `Queue B ${u}`, date: day(-2) },
    ]);
    const r = await raw(h.sb);
    const queue = r.transactions.filter((t) => !t.approved).sort(newestFirst);
    const all = await everyRow();
    expect(all.transactions.map((t: any) => t.id)).toEqual(queue.map((t) => t.id));
    expect(all.summary.count).toBe(queue.length);
    expect(all.summary.total).toBe(queue.reduce((s, t) => s + t.amount, 0));
    expect(all.summary.total_formatted).toBe(usd(all.summary.total));
    expect(all.summary.high_confidence).toBe(all.transactions.filter((t: any) => t.suggestion?.confidence === 'high').length);
    const first = all.transactions[0];
    expect(first).toMatchObject({
      id: queue[0].id,
      date: queue[0].date,
      amount: queue[0].amount,
      amount_formatted: usd(queue[0].amount),
      account_id: queue[0].account_id,
    });
    // Pages of the compact answer walk the same queue.
    const page1 = ok(await h.call('review_transactions', { limit: 2 }));
    expect(page1.columns.slice(0, 5)).toEqual(['id', 'date', 'payee', 'amount', 'category']);
    const ids1 = Object.values(page1.transactions).flatMap((rows: any) => rows.map((row: any[]) => row[0]));
    expect(ids1.sort()).toEqual(
      queue
        .slice(0, 2)
        .map((t) => t.id)
        .sort(),
    );
    expect(page1.summary).toMatchObject({ count: queue.length, total: all.summary.total, total_formatted: all.summary.total_formatted });
    const page2 = ok(await h.call('review_transactions', { limit: 2, cursor: page1.next_cursor }));
    const ids2 = Object.values(page2.transactions).flatMap((rows: any) => rows.map((row: any[]) => row[0]));
    expect(ids2.sort()).toEqual(
      queue
        .slice(2, 4)
        .map((t) => t.id)
        .sort(),
    );
  });

  it('uncategorized and both: the queue as needs_attention counts it; account and since_date narrow it', async () => {
    const [approvedUncat] = await create([{ account_id: 'Everyday Checking', amount: -3, payee_name: `Uncat ${u}`, approved: true }]);
    const r = await raw(h.sb);
    const uncat = uncategorized(r).sort(newestFirst);
    expect(uncat.map((t) => t.id)).toContain(approvedUncat);
    expect((await everyRow({ status: 'uncategorized' })).transactions.map((t: any) => t.id)).toEqual(uncat.map((t) => t.id));
    const both = [...new Map([...r.transactions.filter((t) => !t.approved), ...uncat].map((t) => [t.id, t])).values()].sort(newestFirst);
    const bothRows = (await everyRow({ status: 'both' })).transactions;
    expect(bothRows.map((t: any) => t.id)).toEqual(both.map((t) => t.id));
    const checking = r.accounts.find((a) => a.name === 'Everyday Checking');
    const since = day(-1);
    const narrowed = r.transactions.filter((t) => !t.approved && t.account_id === checking.id && t.date >= since).sort(newestFirst);
    expect((await everyRow({ account_id: 'Everyday Checking', since_date: since })).transactions.map((t: any) => t.id)).toEqual(narrowed.map((t) => t.id));
  });

  it('answers 25 compact rows in at most 4 KB, naming payee, account and categories, with ids only to act on', async () => {
    await plantQueue(h);
    const r = await raw(h.sb);
    const res = await h.call('review_transactions', {});
    const text = res.content[0].text as string;
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(4096);
    const answer = ok(res);
    expect(answer.returned).toBe(25);
    const rows = Object.entries(answer.transactions).flatMap(([account, list]: [string, any]) => list.map((row: any[]) => ({ account, row })));
    expect(rows).toHaveLength(25);
    const ids = new Set(r.accounts.map((a) => a.id));
    for (const { account, row } of rows) {
      expect(r.accounts.map((a) => a.name)).toContain(account);
      // Only the row's own id is an id; names stand for payees, accounts and categories.
      expect(row.slice(1).filter((v: unknown) => typeof v === 'string' && /^[0-9a-f]{8}-/.test(v))).toEqual([]);
      expect(ids.has(row[0])).toBe(false);
    }
  });

  it('answers 25 compact rows in at most 4 KB every other week through the coming year (the demo budget moves with the date)', async () => {
    const over: string[] = [];
    for (let k = 1; k <= 26; k++) {
      const now = Date.now() + k * 14 * 86_400_000;
      vi.useFakeTimers({ toFake: ['Date'], now });
      const other = await mcpHarness({ sandbox: { seed: 'review' } });
      try {
        await other.call('review_transactions', {}); // the session's first answer names the budget it took (a notice)
        await plantQueue(other);
        const res = await other.call('review_transactions', {});
        const bytes = Buffer.byteLength(res.content[0].text as string, 'utf8');
        expect(ok(res).returned).toBe(25);
        if (bytes > 4096) over.push(`${new Date(now).toISOString().slice(0, 10)}: ${bytes}`);
      } finally {
        await other.close();
        vi.useRealTimers();
      }
    }
    expect(over).toEqual([]);
  }, 180_000);

  it('answers 25 compact rows in at most 4 KB on three seeds, on the middle of a month and the first of one', async () => {
    const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
    const first = new Date(Date.UTC(Number(month0.slice(0, 4)), Number(month0.slice(5, 7)), 1)).toISOString().slice(0, 10);
    const over: string[] = [];
    for (const seed of ['review', 'review-b', 'review-c'])
      for (const date of [`${month0.slice(0, 8)}15`, first]) {
        vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
        const other = await mcpHarness({ sandbox: { seed } });
        try {
          await other.call('review_transactions', {}); // the session's first answer names the budget it took (a notice)
          await plantQueue(other);
          const res = await other.call('review_transactions', {});
          expect(ok(res).returned).toBe(25);
          const bytes = Buffer.byteLength(res.content[0].text as string, 'utf8');
          if (bytes > 4096) over.push(`seed ${seed} on ${date}: ${bytes}`);
        } finally {
          await other.close();
          vi.useRealTimers();
        }
      }
    expect(over).toEqual([]);
  }, 120_000);

  it('never suggests a hidden category, nor a card payment category for a purchase; counts a split once per line', async () => {
    const r = await raw(h.sb);
    // A payee whose history is in a hidden category (the demo budget hides one it used).
    const hidden = new Set(r.categories.filter((c) => c.hidden || c.group.hidden).map((c) => c.id));
    const inHidden = r.transactions.find((t) => t.approved && hidden.has(t.category_id) && t.payee_id && !t.transfer_account_id);
    expect(inHidden, 'a payee with history in a hidden category').toBeDefined();
    const [h1] = await create([{ account_id: inHidden.account_id, amount_milliunits: inHidden.amount, payee_id: inHidden.payee_id }]);
    const s1 = (await rowOf(h1!)).suggestion;
    if (s1) expect(hidden.has(s1.category_id)).toBe(false);

    // Three purchases in the card's payment category and one in Groceries: Groceries, 1 of 1.
    const payment = r.categories.find((c) => c.group.name === 'Credit Card Payments' && c.name === 'Visa Rewards');
    const groceries = r.categories.find((c) => c.name === 'Groceries');
    const payee = `Card Pay Shop ${u}`;
    await create([
      ...[1, 2, 3].map((i) => ({
        account_id: 'Everyday Checking',
        amount: -20 - i,
        payee_name: payee,
        category_id: payment.id,
        approved: true,
        date: day(-10 * i),
      })),
      { account_id: 'Everyday Checking', amount: -22, payee_name: payee, category_id: groceries.id, approved: true, date: day(-40) },
    ]);
    const [p1] = await create([{ account_id: 'Everyday Checking', amount: -21, payee_name: payee }]);
    expect((await rowOf(p1!)).suggestion).toMatchObject({ category_id: groceries.id, basis: 'payee: 1 of 1' });

    // One split of three lines, two of them Dining Out: the lines count, not the transaction.
    const dining = r.categories.find((c) => c.name === 'Dining Out');
    const splitPayee = `Split Diner ${u}`;
    await create([
      {
        account_id: 'Everyday Checking',
        amount: -30,
        payee_name: splitPayee,
        approved: true,
        date: day(-5),
        subtransactions: [
          { amount: -10, category_id: dining.id },
          { amount: -12, category_id: dining.id },
          { amount: -8, category_id: groceries.id },
        ],
      },
    ]);
    const [s2] = await create([{ account_id: 'Everyday Checking', amount: -11, payee_name: splitPayee }]);
    expect((await rowOf(s2!)).suggestion).toMatchObject({ category_id: dining.id, basis: 'payee: 2 of 3' });
  });

  it('a new payee borrows the history of the payee whose name it shares words with', async () => {
    const r = await raw(h.sb);
    const coffee = r.categories.find((c) => c.name === 'Coffee');
    await create(
      [1, 2, 3].map((i) => ({
        account_id: 'Everyday Checking',
        amount: -4 - i,
        payee_name: `Zorblax Roasters ${u}`,
        category_id: coffee.id,
        approved: true,
        date: day(-7 * i),
      })),
    );
    const [id] = await create([{ account_id: 'Everyday Checking', amount: -5, payee_name: `ZORBLAX #4411 Portland ${u}` }]);
    const row = await rowOf(id!);
    expect(row.flags).toMatchObject({ new_payee: true });
    expect(row.suggestion).toMatchObject({ category_id: coffee.id, confidence: 'medium' });
    expect(row.suggestion.basis).toContain(`Zorblax Roasters ${u}`);
  });
});

describe('review_transactions flags', () => {
  it('new_payee, unusual_amount, possible_duplicate, matches_scheduled and transfer_candidate, each where it applies', async () => {
    const r = await raw(h.sb);
    // unusual_amount: a payee with steady history, charged three times its median.
    const netflix = r.payees.find((p) => p.name === 'Netflix');
    const past = r.transactions
      .filter((t) => t.payee_id === netflix.id && t.amount < 0)
      .map((t): number => -t.amount)
      .sort((a, b) => a - b);
    expect(past.length).toBeGreaterThanOrEqual(3);
    const median = past.length % 2 ? past[past.length >> 1]! : Math.round((past[past.length / 2 - 1]! + past[past.length / 2]!) / 2);
    const [unusual, usual] = await create([
      { account_id: 'Visa Rewards', amount_milliunits: -3 * median, payee_id: netflix.id },
      { account_id: 'Visa Rewards', amount_milliunits: -median, payee_id: netflix.id, date: day(-20) },
    ]);
    // possible_duplicate: the same account, amount and payee a day apart.
    const [dupA, dupB] = await create([
      { account_id: 'Everyday Checking', amount: -41.17, payee_name: `Dup Shop ${u}` },
      { account_id: 'Everyday Checking', amount: -41.17, payee_name: `Dup Shop ${u}`, date: day(-1) },
    ]);
    // matches_scheduled: a schedule of the account for the same amount in two days.
    const sched = ok(
      await h.call('create_scheduled_transaction', { account_id: 'Wallet', date: day(2), amount: -63.21, payee_name: `Sched ${u}`, frequency: 'monthly' }),
    ).scheduled_transaction;
    const [matching, notMatching] = await create([
      { account_id: 'Wallet', amount: -63.21, payee_name: `Sched ${u}` },
      { account_id: 'Wallet', amount: -63.22, payee_name: `Sched ${u}` },
    ]);
    // transfer_candidate: out of one budget account, the same in to another two days later; a third too far apart.
    const [out, into, far] = await create([
      { account_id: 'Everyday Checking', amount: -777.77, payee_name: `Move ${u}` },
      { account_id: 'Rainy Day Savings', amount: 777.77, payee_name: `Move ${u}`, date: day(-2) },
      { account_id: 'Rainy Day Savings', amount: 555.55, payee_name: `Far ${u}`, date: day(-5) },
    ]);
    await create([{ account_id: 'Everyday Checking', amount: -555.55, payee_name: `Far out ${u}` }]);

    const rows = new Map((await everyRow()).transactions.map((t: any) => [t.id, t]));
    const flags = (id: string | undefined) => (rows.get(id!) as any)?.flags ?? {};
    expect(flags(dupA)).toEqual({ uncategorized: true, possible_duplicate: dupB });
    expect(flags(dupB).possible_duplicate).toBe(dupA);
    // Compact rows name the twin by its date, which a reviewer can quote (same account, same amount).
    const compact = ok(await h.call('review_transactions', { account_id: 'Everyday Checking', limit: 500 }));
    const flagsAt = compact.columns.indexOf('flags');
    const compactFlags = (id: string | undefined) => compact.transactions['Everyday Checking'].find((row: any[]) => row[0] === id)?.[flagsAt];
    const dateOf = new Map((await raw(h.sb)).transactions.map((t) => [t.id, t.date]));
    expect(compactFlags(dupA)).toEqual({ uncategorized: true, possible_duplicate: dateOf.get(dupB!) });
    expect(compactFlags(dupB)).toEqual({ uncategorized: true, possible_duplicate: dateOf.get(dupA!) });
    expect(dateOf.get(dupB!)).toBe(day(-1));
    expect(flags(unusual).unusual_amount).toBe(-median);
    expect(flags(unusual).unusual_amount_formatted).toBe(usd(-median));
    expect(flags(usual).unusual_amount).toBeUndefined();
    expect(flags(matching).matches_scheduled).toBe(true);
    expect(sched.account_id).toBe(r.accounts.find((a) => a.name === 'Wallet').id);
    expect(flags(notMatching).matches_scheduled).toBeUndefined();
    expect(flags(out).transfer_candidate).toBe(into);
    expect(flags(into).transfer_candidate).toBe(out);
    expect(flags(far).transfer_candidate).toBeUndefined();
    // Compact rows give the usual amount as every figure, the number with its text beside it, and
    // every flag, compact or full, is a name of the answer vocabulary (one name, one kind).
    const visa = ok(await h.call('review_transactions', { account_id: 'Visa Rewards', limit: 500 }));
    const unusualRow = visa.transactions['Visa Rewards'].find((row: any[]) => row[0] === unusual);
    expect(unusualRow[visa.columns.indexOf('flags')]).toMatchObject({ unusual_amount: -median, unusual_amount_formatted: usd(-median) });
    const flagNames = new Set<string>();
    for (const row of rows.values()) Object.keys((row as any).flags ?? {}).forEach((k) => flagNames.add(k));
    for (const rowsOf of [compact, visa].flatMap((c) => Object.values(c.transactions) as any[][]))
      for (const row of rowsOf) Object.keys(row[flagsAt] ?? {}).forEach((k) => flagNames.add(k));
    for (const k of ['new_payee', 'unusual_amount', 'possible_duplicate', 'matches_scheduled', 'transfer_candidate']) expect(flagNames).toContain(k);
    expect([...flagNames].filter((k) => !lookUp(k))).toEqual([]);
    // A payee seen once is new; one with history is not.
    const [fresh] = await create([{ account_id: 'Everyday Checking', amount: -9.99, payee_name: `Brand New ${u}` }]);
    expect((await rowOf(fresh!)).flags).toMatchObject({ new_payee: true });
    expect(flags(unusual).new_payee).toBeUndefined();
  });

  it('unusual_amount leaves alone a payee that charges two steady amounts (a loan’s interest and escrow), and still flags one far from both', async () => {
    const payee = `Two Steady ${u}`;
    const history = [-50, -200, -50, -200, -50, -200, -200].map((amount, i) => ({
      account_id: 'Everyday Checking',
      amount,
      payee_name: payee,
      category_id: 'Groceries',
      approved: true,
      date: day(-30 * (i + 1)),
    }));
    await create(history);
    const [small, large, far] = await create([
      { account_id: 'Everyday Checking', amount: -50, payee_name: payee, category_id: 'Groceries' },
      { account_id: 'Everyday Checking', amount: -200, payee_name: payee, category_id: 'Groceries' },
      { account_id: 'Everyday Checking', amount: -900, payee_name: payee, category_id: 'Groceries' },
    ]);
    // From the raw API: the payee's earlier charges, their median the usual amount.
    const r = await raw(h.sb);
    const earlier = r.transactions
      .filter((t) => t.payee_name === payee && t.approved)
      .map((t): number => -t.amount)
      .sort((a, b) => a - b);
    expect(earlier).toHaveLength(7);
    const median = earlier[3]!;
    expect(median).toBe(200_000);
    const rows = new Map((await everyRow()).transactions.map((t: any) => [t.id, t]));
    const flags = (id: string | undefined) => (rows.get(id!) as any)?.flags ?? {};
    // -50 is far from the median (200) but the payee charged it three times: usual, not flagged.
    expect(flags(small).unusual_amount).toBeUndefined();
    expect(flags(large).unusual_amount).toBeUndefined();
    expect(flags(far).unusual_amount).toBe(-median);
  });
});

describe('review_transactions marks uncategorized rows (issue 58 item 8)', () => {
  it('flags each row that counts as uncategorized, and only those, in full and compact detail; the summary counts them', async () => {
    await create([
      { account_id: 'Everyday Checking', amount: -4.25, payee_name: `Mark A ${u}` },
      { account_id: 'Everyday Checking', amount: -5.5, payee_name: `Mark B ${u}`, category_id: 'Groceries' },
    ]);
    const r = await raw(h.sb);
    const uncat = new Set(uncategorized(r).map((t) => t.id));
    const queue = [...new Map([...r.transactions.filter((t) => !t.approved), ...uncategorized(r)].map((t) => [t.id, t])).values()];
    expect(queue.some((t) => uncat.has(t.id)) && queue.some((t) => !uncat.has(t.id))).toBe(true);
    const full = await everyRow({ status: 'both' });
    for (const row of full.transactions) expect([row.id, row.flags?.uncategorized === true]).toEqual([row.id, uncat.has(row.id)]);
    expect(full.summary.uncategorized_count).toBe(queue.filter((t) => uncat.has(t.id)).length);
    const compact = ok(await h.call('review_transactions', { status: 'both', limit: 500 }));
    const flagsAt = compact.columns.indexOf('flags');
    const rows = Object.values(compact.transactions).flat() as any[][];
    for (const row of rows) expect([row[0], row[flagsAt]?.uncategorized === true]).toEqual([row[0], uncat.has(row[0])]);
  });
});
