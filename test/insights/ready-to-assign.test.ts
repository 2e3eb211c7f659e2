/**
 * Ready to Assign has one value (issue 57, item 6): the October case. A card purchase in the month
 * before the current one overspends Groceries by $18.40, after the money Ready to Assign held was
 * assigned in the next month. YNAB's figures, recomputed here from the raw API: the current month
 * shows $0.00 (the next month took what it had), the next month, the furthest, what is left; the
 * overspending comes off it as cash overspending up to what Groceries spent from cash accounts
 * that month ("YNAB takes the cash out first", help article 769), and credit overspending
 * changes no Ready to Assign (article 944). Every tool that reports Ready to Assign gives the
 * month's figure with its month, and the furthest month's with it and why: needs_attention,
 * get_month, targets_summary, fund_targets, move_money and the weekly digest. On three seeds, in
 * the middle of a month and on the first of one.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, shiftMonth, usd, type Raw } from './raw.js';

const CREDIT = new Set(['creditCard', 'lineOfCredit']);
const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];
const OVERSPENT = 18_400;

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('Ready to Assign, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const current = `${date.slice(0, 7)}-01`;
  const previous = shiftMonth(current, -1);
  const next = shiftMonth(current, 1);
  /** The raw API's Ready to Assign of the current and the next month, after the case. */
  let cur: number;
  let later: number;
  /** What YNAB's rules say they are, worked out here. */
  let cashOverspent: number;
  /** The raw API's figures before the purchase (after the assignment). */
  let curBefore: number;
  let laterBefore: number;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed }, flags: { toolsets: 'all' } });
    r = await raw(h.sb);
    const checking = r.accounts.find((a) => a.on_budget && !a.closed && a.type === 'checking');
    const card = r.accounts.find((a) => a.on_budget && !a.closed && a.type === 'creditCard');
    const groceries = r.categories.find((c) => c.name === 'Groceries');
    const vacation = r.categories.find((c) => c.name === 'Vacation');
    // Money in Ready to Assign, all of it assigned in the next month.
    const held = (await r.month(current)).to_be_budgeted;
    const gift = 100_000 + Math.max(0, -held);
    const post = (t: Record<string, unknown>) => h.sb.call('POST', `${r.b}/transactions`, { transaction: { cleared: 'cleared', approved: true, ...t } });
    expect((await post({ account_id: checking.id, date, amount: gift, payee_name: 'Gift from Grandma', category_id: r.rta })).status).toBe(201);
    const toAssign = (await h.sb.get(`${r.b}/months/${current}`)).body.data.month.to_be_budgeted;
    const set = await h.sb.call('PATCH', `${r.b}/months/${next}/categories/${vacation.id}`, { category: { budgeted: toAssign } });
    expect(set.status).toBe(200);
    const months = async () => (await h.sb.get(`${r.b}/months`)).body.data.months;
    const before = await months();
    curBefore = before.find((m: any) => m.month === current).to_be_budgeted;
    laterBefore = before.find((m: any) => m.month === next).to_be_budgeted;
    // The card purchase that overspends Groceries in the month before by $18.40.
    const g = (await h.sb.get(`${r.b}/months/${previous}`)).body.data.month.categories.find((c: any) => c.id === groceries.id);
    expect(g.balance, 'Groceries had money left in the month before').toBeGreaterThanOrEqual(0);
    const purchase = {
      account_id: card.id,
      date: `${previous.slice(0, 8)}28`,
      amount: -(g.balance + OVERSPENT),
      payee_name: 'Fresh Market',
      category_id: groceries.id,
    };
    expect((await post(purchase)).status).toBe(201);
    r = await raw(h.sb);
    cur = r.months.find((m) => m.month === current).to_be_budgeted;
    later = r.months.find((m) => m.month === next).to_be_budgeted;
    // YNAB's rule: the overspending is cash up to what Groceries spent from cash accounts that month.
    const cashSpent = -r.transactions
      .flatMap(rawLines)
      .filter((l) => l.date.startsWith(previous.slice(0, 7)) && l.category_id === groceries.id)
      .filter((l) => r.account.get(l.account_id)?.on_budget && !CREDIT.has(r.account.get(l.account_id).type))
      .reduce((s, l) => s + l.amount, 0);
    cashOverspent = Math.min(OVERSPENT, Math.max(0, cashSpent));
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it("the raw months are YNAB's: the current month at $0.00, the next month less the cash overspending", () => {
    expect([curBefore, cur]).toEqual([0, 0]);
    expect(later - laterBefore).toBe(-cashOverspent);
    expect(cashOverspent, 'the demo spends on groceries from checking too: the October case is cash overspending').toBe(OVERSPENT);
  });

  /** The fields every tool gives: the month's figure with its month, the furthest month's beside it. */
  const named = (figure: number, month: string) => ({
    ready_to_assign: figure,
    ready_to_assign_formatted: usd(figure),
    ready_to_assign_month: month,
    ready_to_assign_latest: later,
    ready_to_assign_latest_month: next,
  });
  const why = () =>
    `${next.slice(0, 7)}, the furthest month, shows Ready to Assign ${usd(later)}, ${current.slice(0, 7)} ${usd(cur)}: YNAB takes what later months assign`;

  it('needs_attention gives the current month, named, and the furthest month with why', async () => {
    const res = ok(await h.call('needs_attention', { kind: 'ready_to_assign' }));
    const k = res.attention.find((x: any) => x.kind === 'ready_to_assign');
    const { ready_to_assign_month: _m, ...compact } = named(cur, current);
    expect(k).toMatchObject({ ...compact, reason: expect.stringMatching(new RegExp(`^Negative in ${next.slice(0, 7)}:`)) });
    // The compact answer stays within 2 KB with the line.
    expect(Buffer.byteLength((await h.call('needs_attention')).content[0].text)).toBeLessThanOrEqual(2048);
    expect(k.note).toBe("YNAB takes what later months assign and a month's cash overspending from the furthest month, whose figure is the up-to-date one.");
    expect(k.examples[0]).toEqual({ ready_to_assign: cur, ready_to_assign_formatted: usd(cur), state: 'negative' });
    const full = ok(await h.call('needs_attention', { kind: 'ready_to_assign', detail: 'full' }));
    expect(full.attention[0]).toMatchObject(named(cur, current));
    expect(full.attention[0].note).toContain(why());
    expect(full.attention[0].examples[0]).toMatchObject({ ...named(cur, current), state: 'negative' });
  });

  it('get_month gives each month its own figure, and the current month names the furthest with why', async () => {
    const now = ok(await h.call('get_month', { month: 'current' }));
    expect(now.month).toMatchObject({ month: current, ready_to_assign: cur, ready_to_assign_formatted: usd(cur) });
    expect(now).toMatchObject({ ready_to_assign_latest: later, ready_to_assign_latest_month: next });
    expect(now.notices.join(' ')).toContain(why());
    const furthest = ok(await h.call('get_month', { month: next }));
    expect(furthest.month).toMatchObject({ month: next, ready_to_assign: later });
    expect(furthest.ready_to_assign_latest).toBeUndefined();
    // A past month's figure is what it closed with: it names no furthest month.
    const past = ok(await h.call('get_month', { month: previous }));
    expect(past.month).toMatchObject({ month: previous, ready_to_assign: r.months.find((m) => m.month === previous).to_be_budgeted });
    expect(past.ready_to_assign_latest).toBeUndefined();
    expect(past.notices ?? []).not.toContainEqual(expect.stringContaining('the furthest month'));
  });

  it('targets_summary gives the same figure for the month, named', async () => {
    const res = ok(await h.call('targets_summary', {}));
    expect(res.month).toBe(current);
    expect(res.totals).toMatchObject(named(cur, current));
    expect(res.notices.join(' ')).toContain(why());
  });

  it('fund_targets gives the same figure before, named', async () => {
    const res = ok(await h.call('fund_targets', { option: 'underfunded' }));
    expect(res).toMatchObject({
      ready_to_assign_before: cur,
      ready_to_assign_month: current,
      ready_to_assign_latest: later,
      ready_to_assign_latest_month: next,
    });
    expect(JSON.stringify(res)).toContain(why());
  });

  it("move_money's after-state gives the same figure, named", async () => {
    const res = ok(await h.call('move_money', { from_category_id: 'Vacation', to_category_id: 'Dining Out', amount: 1, month: current }));
    expect(res).toMatchObject(named(cur, current));
    expect(res.notices.join(' ')).toContain(why());
  });

  it('the weekly digest gives the same figure, named', async () => {
    const res = ok(await h.call('alerts', {}));
    const digest = res.alerts.find((a: any) => a.type === 'digest.weekly');
    expect(digest).toMatchObject({
      ready_to_assign: cur,
      ready_to_assign_formatted: usd(cur),
      ready_to_assign_month: current,
      ready_to_assign_latest: later,
      ready_to_assign_latest_formatted: usd(later),
      ready_to_assign_latest_month: next,
    });
  });
});
