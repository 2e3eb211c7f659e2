/**
 * One price-rise rule for every surface (issue 58 item 5): needs_attention's price_increase,
 * recurring's price_change (and its compact price_rose) and the price.increased alerts give the
 * same set of payees with the same figures, on three seeds and two dates (mid-month and the
 * first of a month). Series built through the sandbox's HTTP API: one that rose once, one that
 * rose twice (the rise is from the second price to the third), one that fell (no rise, listed as
 * recurring), one that rose and has a one-off schedule (it stays a recurring
 * rise), and three charges four weeks apart (too short to be recurring, so not a rise either).
 * The expected figures come from the raw API's charges, worked out here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, type Raw } from './raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];
const DAY = 86_400_000;

/** Offsets in days from today and prices in milliunits (outflows given positive). */
const SERIES: Record<string, [number, number][]> = {
  'Rose Once': [
    [-120, 12_990],
    [-90, 12_990],
    [-60, 12_990],
    [-30, 12_990],
    [0, 13_990],
  ],
  'Rose Twice': [
    [-150, 10_990],
    [-120, 10_990],
    [-90, 10_990],
    [-60, 12_990],
    [-30, 12_990],
    [0, 13_990],
  ],
  Fell: [
    [-120, 15_990],
    [-90, 15_990],
    [-60, 15_990],
    [-30, 15_990],
    [0, 13_990],
  ],
  'Scheduled Once': [
    [-120, 8_990],
    [-90, 8_990],
    [-60, 8_990],
    [-30, 8_990],
    [0, 9_990],
  ],
  'Four Weeks': [
    [-56, 7_990],
    [-28, 7_990],
    [0, 8_990],
  ],
};
const RISEN = ['Rose Once', 'Rose Twice', 'Scheduled Once'];

/** Within 2% of `to`, in integers. */
const near = (a: number, to: number) => Math.abs(a - to) * 100 <= to * 2;

/** The rise the raw charges show (positive milliunits, oldest first): the price before the latest one (its median, in cents) and the latest. */
function riseOf(amounts: number[]): { old: number; new: number } {
  const latest = amounts[amounts.length - 1]!;
  let i = amounts.length - 1;
  while (i > 0 && near(amounts[i - 1]!, latest)) i--;
  const step: number[] = [];
  for (let j = i - 1; j >= 0 && near(amounts[j]!, amounts[i - 1]!); j--) step.push(amounts[j]!);
  const s = step.sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
  return { old: Math.round(median / 10) * 10, new: latest };
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('price rises agree, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const u = `${seed}-${date}`;
  const day = (n: number) => new Date(Date.parse(date) + n * DAY).toISOString().slice(0, 10);
  const post = async (path: string, body: unknown) => {
    const res = await h.sb.call('POST', `${r.b}${path}`, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed }, flags: { toolsets: 'all' } as never });
    r = await raw(h.sb);
    const checking = r.accounts.find((a) => a.name === 'Everyday Checking');
    const category = r.categories.find((c) => c.name === 'Subscriptions');
    const transactions = Object.entries(SERIES).flatMap(([name, list]) =>
      list.map(([offset, price]) => ({
        account_id: checking.id,
        date: day(offset),
        amount: -price,
        payee_name: `${name} ${u}`,
        category_id: category.id,
        cleared: 'cleared',
        approved: true,
      })),
    );
    await post('/transactions', { transactions });
    // A one-off schedule at the payee whose price rose: it is not a recurring schedule, so the history's rise stays listed.
    await post('/scheduled_transactions', {
      scheduled_transaction: {
        account_id: checking.id,
        date: day(20),
        frequency: 'never',
        amount: -9_990,
        payee_name: `Scheduled Once ${u}`,
        category_id: category.id,
      },
    });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  /** Each surface's rises as payee name → [old, new], positive milliunits. */
  async function surfaces() {
    const attention = ok(await h.call('needs_attention', { kind: 'price_increase', detail: 'full' })).attention[0]?.examples ?? [];
    const na = Object.fromEntries(attention.map((e: any) => [e.name, [e.old, e.new]]));
    const full = ok(await h.call('recurring', { detail: 'full' }));
    const rows = [...(full.subscriptions ?? []), ...(full.bills ?? [])];
    const rec = Object.fromEntries(rows.filter((x: any) => x.price_change).map((x: any) => [x.payee_name, [x.price_change.old, x.price_change.new]]));
    const compact = ok(await h.call('recurring', {})).price_rose ?? [];
    const alerts: any[] = [];
    for (let more = true; more;) {
      const a = ok(await h.call('alerts', {}));
      alerts.push(...a.alerts);
      more = !!a.remaining;
    }
    const al = Object.fromEntries(alerts.filter((x) => x.type === 'price.increased' && x.still_open).map((x) => [x.payee, [x.old, x.amount]]));
    return { na, rec, compact, al, rows };
  }

  it('needs_attention, recurring and the alerts give the same rises with the same figures as the raw charges', async () => {
    const { na, rec, compact, al, rows } = await surfaces();
    expect(rec).toEqual(na);
    expect(al).toEqual(na);
    expect([...compact].sort()).toEqual(Object.keys(na).sort());
    // Every rise (demo and built) has the figures of its raw charges: the price before the latest, and the latest.
    for (const [name, figures] of Object.entries(na)) {
      const row = rows.find((x: any) => x.payee_name === name);
      const account = r.accounts.find((a) => a.name === row.account_name);
      const payee = r.payees.find((p) => p.name === name);
      const amounts = r.transactions
        .filter((t) => t.payee_id === payee.id && t.account_id === account.id && t.amount < 0)
        .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
        .map((t) => -t.amount);
      const rise = riseOf(amounts);
      expect(figures, name).toEqual([rise.old, rise.new]);
    }
  });

  it('a series that rose once, twice, or had a one-off schedule is a rise; one that fell or is too short is not', async () => {
    const { na, rows } = await surfaces();
    const built = Object.keys(na).filter((n) => n.endsWith(u));
    expect(built.sort()).toEqual(RISEN.map((n) => `${n} ${u}`).sort());
    expect(na[`Rose Twice ${u}`]).toEqual([12_990, 13_990]);
    // The fall: listed as recurring, with no price change; the short series: not recurring.
    const fell = rows.find((x: any) => x.payee_name === `Fell ${u}`);
    expect(fell).toBeDefined();
    expect(fell.price_change).toBeUndefined();
    expect(rows.find((x: any) => x.payee_name === `Four Weeks ${u}`)).toBeUndefined();
  });
});
