/**
 * spending_summary through a real MCP client against the sandbox, every figure checked against
 * the API's own answers with counting written in the test (raw.ts): with a month and group_by
 * category each row's net is the month view's activity of that category; outflow, inflow and
 * count add up the transactions' lines; previous periods and assigned amounts; every grouping;
 * "everything else"; transfers between budget accounts and starting balances are never
 * spending, split lines count where they are, tracking accounts only when asked for; a fresh
 * copy answers without a request; the answer is small.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { activityLines, categoryOf, flowsWritten, lastDay, raw, rawLines, shiftMonth, sumsOf, thisMonth, todayUtc, usd, written, type Raw } from './raw.js';

let h: McpHarness;
const requests: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({ stack: { onRequest: (r) => requests.push(`${r.method} ${r.path}`) } });
});
afterAll(() => h.close());

const money = (row: any, name: string) => ({ milli: row[`${name}`], text: row[`${name}_formatted`] });

/** A full row as compact detail writes it: its name, figures with their text, outflow and inflow only where money went both ways, nothing assigned. */
const compactOf = (x: any) => ({
  name: x.name,
  ...flowsWritten('compact', x.outflow, x.inflow),
  net: x.net,
  net_formatted: usd(x.net),
  count: x.count,
  previous_net: x.previous_net,
  previous_net_formatted: usd(x.previous_net),
  ...(x.groups ? { groups: x.groups } : {}),
});

describe('spending_summary by category for a month', () => {
  it.each([
    [0, 'full'],
    [-1, 'full'],
    [0, 'compact'],
    [-1, 'compact'],
  ] as const)("each row is the month view's activity of its category (month %i, %s)", async (offset, detail) => {
    const full = detail === 'full';
    const month = shiftMonth(thisMonth(), offset);
    const r = await raw(h.sb);
    const view = await r.month(month);
    const res = ok(await h.call('spending_summary', { month, top: 50, ...(full ? { detail } : {}) }));
    // The month a period was asked as is said again in full detail only (it is its since date).
    expect(res.period).toEqual(full ? { since: month, until: lastDay(month), month } : { since: month, until: lastDay(month) });
    expect(res.budget).toEqual({ id: r.budget.id, name: 'Demo Household' });
    const lines = activityLines(r, month, lastDay(month));
    const previousLines = activityLines(r, shiftMonth(month, -1), lastDay(shiftMonth(month, -1)));
    const previousView = await r.month(shiftMonth(month, -1));
    // Compact rows name their category (every tool takes names; they are unique in this budget), full rows give its id too.
    const named = new Map<string, any>(view.categories.map((c: any) => [c.name, c]));
    expect(named.size).toBe(view.categories.length);
    expect(res.rows.length).toBeGreaterThan(5);
    for (const row of res.rows) {
      const category = full ? view.categories.find((c: any) => c.id === row.id) : named.get(row.name);
      expect(category, row.name).toBeDefined();
      expect(row.net, row.name).toBe(category.activity);
      const mine = lines.filter((l) => categoryOf(r, l) === category.id);
      const sums = sumsOf(mine);
      const previous = previousView.categories.find((c: any) => c.id === category.id)?.activity ?? 0;
      expect(sumsOf(previousLines.filter((l) => categoryOf(r, l) === category.id)).net).toBe(previous);
      expect(row).toEqual({
        ...(full ? { id: category.id } : {}),
        name: category.name,
        ...flowsWritten(detail, sums.outflow, sums.inflow),
        ...written(detail, { net: sums.net }),
        count: mine.length,
        ...written(detail, { previous_net: previous }),
        ...(full ? written(detail, { assigned: category.budgeted }) : {}),
      });
    }
    // Every category with activity in either month has its row (issue 58 item 4: both figures), and the rows add up to the month's activity.
    const active = view.categories.filter((c: any) => [lines, previousLines].some((ls) => ls.some((l) => categoryOf(r, l) === c.id)));
    expect(res.rows.map((x: any) => (full ? x.id : named.get(x.name).id)).sort()).toEqual(active.map((c: any) => c.id).sort());
    const total = sumsOf(lines);
    expect(total.net).toBe(view.activity);
    // Totals keep their dollars in both details.
    expect(res.totals).toEqual({
      ...flowsWritten(detail, total.outflow, total.inflow, true),
      ...written(detail, { net: view.activity }, true),
      count: lines.length,
      ...written(detail, { previous_net: sumsOf(previousLines).net }, true),
    });
  });

  it('keeps the top 10 by spending and sums the rest as everything else', async () => {
    const month = shiftMonth(thisMonth(), -1);
    const all = ok(await h.call('spending_summary', { month, top: 50, detail: 'full' })).rows;
    const res = ok(await h.call('spending_summary', { month, detail: 'full' }));
    expect(all.length).toBeGreaterThan(11);
    const byOutflow = [...all].sort((a: any, b: any) => a.outflow - b.outflow || a.net - b.net);
    expect(res.rows.slice(0, 10).map((x: any) => x.id)).toEqual(byOutflow.slice(0, 10).map((x: any) => x.id));
    const rest = res.rows[10];
    expect(res.rows).toHaveLength(11);
    expect(rest).toMatchObject({ name: 'everything else', groups: all.length - 10 });
    expect(rest.id).toBeUndefined();
    for (const k of ['outflow', 'inflow', 'net', 'previous_net', 'assigned']) {
      const sum = byOutflow.slice(10).reduce((s: number, x: any) => s + x[`${k}`], 0);
      expect(rest[`${k}`], k).toBe(sum);
      expect(rest[`${k}_formatted`], k).toBe(usd(sum));
    }
    expect(rest.count).toBe(byOutflow.slice(10).reduce((s: number, x: any) => s + x.count, 0));
    // Compact detail: the same rows and sums, as compact rows (top 7 by default: each figure carries its text).
    const compact = ok(await h.call('spending_summary', { month, top: 10 }));
    expect(compact.rows).toEqual(res.rows.map(compactOf));
    expect(compact.rows[10]).toMatchObject({ name: 'everything else', groups: all.length - 10 });
    // By default, 6 when the answer says a line of its own (what some days' data needs said).
    const seven = ok(await h.call('spending_summary', { month }));
    const said = (seven.notices ?? []).some((x: string) => !x.startsWith('Calls without budget_id'));
    const n = said ? 6 : 7;
    expect(seven.rows.slice(0, n).map((x: any) => x.name)).toEqual(byOutflow.slice(0, n).map((x: any) => x.name));
    expect(seven.rows[n]).toMatchObject({ name: 'everything else', groups: all.length - n });
  });
});

describe('other groupings and periods', () => {
  it('groups by payee, account, category group and month over a date range, with the previous equal period', async () => {
    const r = await raw(h.sb);
    const since = shiftMonth(thisMonth(), -3);
    const until = todayUtc();
    // The previous period by the rules docs/insights.md gives (since is a month's first day here):
    // from January 1 within its year, the same dates a year earlier; to a month's last day, as
    // many whole months before; else as many days before. Today decides which.
    const days = Math.round((Date.parse(until) - Date.parse(since)) / 86_400_000) + 1;
    const yearEarlier = (d: string) => `${Number(d.slice(0, 4)) - 1}${d.slice(4)}`.replace(/-02-29$/, '-02-28');
    const toYearAgo = since.slice(5) === '01-01';
    const wholeMonths = until === lastDay(until.slice(0, 7) + '-01');
    const prevSince = toYearAgo
      ? yearEarlier(since)
      : wholeMonths
        ? shiftMonth(since, -4) // this month and the three before it, whole
        : new Date(Date.parse(since) - days * 86_400_000).toISOString().slice(0, 10);
    const prevUntil = toYearAgo ? yearEarlier(until) : new Date(Date.parse(since) - 86_400_000).toISOString().slice(0, 10);
    const lines = activityLines(r, since, until);
    const previous = activityLines(r, prevSince, prevUntil);
    const keyOf: Record<string, (l: any) => string | null> = {
      payee: (l) => l.payee_id,
      account: (l) => l.account_id,
      category_group: (l) => r.category.get(categoryOf(r, l)!)?.category_group_id ?? null,
    };
    for (const [by, key] of Object.entries(keyOf)) {
      const res = ok(await h.call('spending_summary', { since_date: since, until_date: until, group_by: by, top: 50, detail: 'full' }));
      expect(res.previous_period).toEqual({ since: prevSince, until: prevUntil });
      // A group with spending in either period is a row (issue 58 item 4). Past the 50 rows `top`
      // keeps at most, the rest are one, "everything else": the demo's dates follow today's, and
      // on some days its payees over these four months and the four before are more than 50.
      const ids = new Set([...lines, ...previous].map(key));
      const kept = Math.min(ids.size, 50);
      expect(res.rows).toHaveLength(ids.size > kept ? kept + 1 : kept);
      if (ids.size > kept) {
        const keptIds = new Set(res.rows.slice(0, kept).map((x: any) => x.id ?? null));
        const others = (l: any) => !keptIds.has(key(l));
        const s = sumsOf(lines.filter(others));
        // One group left over is named as a row of its own (spending-summary.ts); more are "everything else".
        const alone = ids.size - kept === 1;
        const leftId = [...ids].find((id) => !keptIds.has(id));
        expect(res.rows[kept]).toMatchObject({
          ...(alone ? { id: leftId } : { name: 'everything else', groups: ids.size - kept }),
          outflow: s.outflow,
          inflow: s.inflow,
          net: s.net,
          count: s.count,
        });
        if (alone) expect(res.rows[kept].groups).toBeUndefined();
        expect(res.rows[kept].previous_net).toBe(sumsOf(previous.filter(others)).net);
      }
      for (const row of res.rows.slice(0, kept)) {
        const mine = lines.filter((l) => key(l) === (row.id ?? null));
        const s = sumsOf(mine);
        expect({ by, id: row.id, out: row.outflow, in: row.inflow, net: row.net, n: row.count }).toEqual({
          by,
          id: row.id,
          out: s.outflow,
          in: s.inflow,
          net: s.net,
          n: s.count,
        });
        expect(row.previous_net).toBe(sumsOf(previous.filter((l) => key(l) === (row.id ?? null))).net);
        if (by === 'category_group') {
          // Assigned in the months the period touches, to the group's categories.
          let assigned = 0;
          for (let m = since; m <= until; m = shiftMonth(m, 1))
            for (const c of (await r.month(m)).categories) if (c.category_group_id === row.id) assigned += c.budgeted;
          expect(row.assigned, row.name).toBe(assigned);
        } else expect(row).not.toHaveProperty('assigned');
      }
      expect(res.totals.net).toBe(sumsOf(lines).net);
      // Compact detail: the same groups by name, the same figures.
      const compact = ok(await h.call('spending_summary', { since_date: since, until_date: until, group_by: by, top: 50 }));
      // By month, a compact row's previous period is the row before it: said in the totals only.
      const compactRow = (x: any) => (by === 'month' ? (({ previous_net: _p, previous_net_formatted: _f, ...rest }) => rest)(compactOf(x)) : compactOf(x));
      expect(compact.rows, by).toEqual(res.rows.map(compactRow));
      expect(compact.totals.net).toBe(sumsOf(lines).net);
    }
    // Whole months compare with as many whole months before (in April, from January 1: a year to
    // date, with the same dates a year earlier).
    // A month row is named by its month (its id too, in full detail).
    const months = [0, 1, 2, 3].map((i) => shiftMonth(since, i));
    const wholePrevious = toYearAgo
      ? { since: yearEarlier(since), until: yearEarlier(lastDay(thisMonth())) }
      : { since: shiftMonth(since, -4), until: lastDay(shiftMonth(since, -1)) };
    for (const detail of ['compact', 'full'] as const) {
      const byMonth = ok(await h.call('spending_summary', { since_date: since, until_date: lastDay(thisMonth()), group_by: 'month', detail }));
      expect(byMonth.previous_period).toEqual(wholePrevious);
      expect(byMonth.rows.map((x: any) => x.name)).toEqual(months);
      expect(byMonth.rows.map((x: any) => x.id)).toEqual(detail === 'full' ? months : months.map(() => undefined));
      for (const row of byMonth.rows) {
        expect(row.net).toBe((await r.month(row.name)).activity);
        // Compact by month: the previous month is the row before (its net), said once in the totals.
        if (detail === 'full') expect(row.previous_net).toBe((await r.month(shiftMonth(row.name, -1))).activity);
        else expect(row).not.toHaveProperty('previous_net');
      }
    }
  });

  it('filters by category, account or payee given by name, and answers small', async () => {
    const r = await raw(h.sb);
    const month = shiftMonth(thisMonth(), -1);
    const dining = r.categories.find((c) => c.name === 'Dining Out');
    const res = await h.call('spending_summary', { month, category_id: 'dining out' });
    const s = ok(res);
    const activity = (await r.month(month)).categories.find((c: any) => c.id === dining.id).activity;
    expect(s.rows).toHaveLength(1);
    expect(s.rows[0]).toMatchObject({ name: 'Dining Out', net: activity });
    expect(Buffer.byteLength(res.content[0].text)).toBeLessThanOrEqual(2048);
    expect(ok(await h.call('spending_summary', { month, category_id: 'dining out', detail: 'full' })).rows[0]).toMatchObject({
      id: dining.id,
      name: 'Dining Out',
      net: activity,
    });
    const visa = r.accounts.find((a) => a.name === 'Visa Rewards');
    const onCard = ok(await h.call('spending_summary', { month, account_id: 'VISA REWARDS', group_by: 'account', detail: 'full' }));
    expect(onCard.rows.map((x: any) => x.id)).toEqual([visa.id]);
    expect(onCard.totals.net).toBe(sumsOf(activityLines(r, month, lastDay(month)).filter((l) => l.account_id === visa.id)).net);
  });

  it('refuses a month with a date range, a range that ends before it starts, and unknown names', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ month: 'current', since_date: '2026-01-01' }, /give month, or since_date\/until_date, not both/],
      [{ since_date: '2026-03-01', until_date: '2026-02-01' }, /until_date 2026-02-01 is before since_date 2026-03-01/],
      [{ until_date: '2026-02-01' }, /until_date needs since_date/],
      [{ category_id: 'Dinning Out' }, /category_id "Dinning Out": no category has that id or name\. Closest: "Dining Out" \(id [0-9a-f-]{36}/],
      [{ group_by: 'tag' }, /group_by: must be one of/],
    ];
    for (const [args, message] of cases) {
      const res = await h.call('spending_summary', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
  });
});

describe('what counts as spending', () => {
  it('never counts transfers between budget accounts or starting balances; counts split lines; tracking accounts only when asked', async () => {
    const r0: Raw = await raw(h.sb);
    const today = todayUtc();
    const month = thisMonth();
    const before = ok(await h.call('spending_summary', { month, top: 50, detail: 'full' }));
    const beforeAll = ok(await h.call('spending_summary', { month, top: 50, include_off_budget: true }));
    const checking = r0.accounts.find((a) => a.name === 'Everyday Checking');
    const savings = r0.accounts.find((a) => a.name === 'Rainy Day Savings');
    const mortgage = r0.accounts.find((a) => !a.on_budget && !a.closed);
    const groceries = r0.categories.find((c) => c.name === 'Groceries');
    const fun = r0.categories.find((c) => c.name === 'Fun Money');
    // Written through the server (names for ids), so its copy knows it changed.
    const create = async (t: Record<string, unknown>) =>
      ok(await h.call('create_transactions', { transactions: [{ date: today, cleared: 'cleared', approved: true, ...t }] }));
    await create({ account_id: 'Everyday Checking', amount: -77, payee_id: savings.transfer_payee_id });
    ok(await h.call('create_account', { name: `Spending Test ${Date.now()}`, type: 'checking', balance: 5000 }));
    // A tracking account's starting balance has no category: still not spending.
    ok(await h.call('create_account', { name: `Spending Test Asset ${Date.now()}`, type: 'otherAsset', balance: -2500 }));
    await create({
      account_id: checking.id,
      amount: -30,
      payee_name: 'Split Shop',
      subtransactions: [
        { amount: -20, category_id: 'Groceries' },
        { amount: -10, category_id: fun.id },
      ],
    });
    await create({ account_id: mortgage.name, amount: -12.34, payee_name: 'Escrow Fee' });
    const after = ok(await h.call('spending_summary', { month, top: 50, detail: 'full' }));
    const net = (res: any, id: string) => res.rows.find((x: any) => x.id === id)?.net ?? 0;
    expect(after.totals.net - before.totals.net).toBe(-30_000);
    expect(net(after, groceries.id) - net(before, groceries.id)).toBe(-20_000);
    expect(net(after, fun.id) - net(before, fun.id)).toBe(-10_000);
    expect(after.totals.count - before.totals.count).toBe(2);
    // Still the month view's activity, category by category.
    const r = await raw(h.sb);
    const view = await r.month(month);
    for (const row of after.rows) expect(row.net, row.name).toBe(view.categories.find((c: any) => c.id === row.id).activity);
    expect(after.totals.net).toBe(view.activity);
    // The tracking account's fee counts only when asked for; its new starting balance never.
    const afterAll = ok(await h.call('spending_summary', { month, top: 50, include_off_budget: true }));
    expect(afterAll.totals.net - beforeAll.totals.net).toBe(-30_000 - 12_340);
    const withTracking = ok(await h.call('spending_summary', { month, top: 50, detail: 'full', group_by: 'account', include_off_budget: true }));
    expect(withTracking.rows.find((x: any) => x.id === mortgage.id)).toMatchObject({
      net: sumsOf(activityLines(r, month, lastDay(month), true).filter((l) => l.account_id === mortgage.id)).net,
    });
    expect(ok(await h.call('spending_summary', { month, group_by: 'account', top: 50, detail: 'full' })).rows.some((x: any) => x.id === mortgage.id)).toBe(
      false,
    );
    expect(rawLines(r.transactions.find((t) => t.payee_name === 'Split Shop')).length).toBe(2);
  });

  it('answers from a fresh copy without a request', async () => {
    ok(await h.call('spending_summary', {}));
    const n = requests.length;
    ok(await h.call('spending_summary', { group_by: 'payee' }));
    ok(await h.call('spending_summary', { month: shiftMonth(thisMonth(), -2), category_id: 'Groceries' }));
    expect(requests.slice(n)).toEqual([]);
  });
});
