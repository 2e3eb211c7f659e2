/**
 * Future months, over real HTTP: money assigned in a later month reduces this month's Ready to
 * Assign ("assigned in future") down to 0.00, and what the month does not hold makes the future
 * month negative; each month's to_be_budgeted follows the rule for that month (a past month as it
 * closed, the current and future months less what is assigned after them, the furthest month
 * holding the most up-to-date figure); and how far ahead months exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../helpers/sandbox.js';
import { pinnedDemo, TODAY, type PinnedDemo } from './pinned-demo.js';

const PREV = '2026-10-01';
const CUR = '2026-11-01';
const NEXT = '2026-12-01';
const AFTER = '2027-01-01';

let sb: TestSandbox;
let b: string;
let demo: PinnedDemo;

beforeAll(async () => {
  demo = await pinnedDemo();
  ({ sb, b } = demo);
});

afterAll(() => sb.close());

async function assign(name: string, month: string, budgeted: number) {
  const res = await sb.call('PATCH', `${b}/months/${month}/categories/${demo.cat[name].id}`, { category: { budgeted } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function rta(month: string): Promise<number> {
  const res = await sb.get(`${b}/months/${month}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const m = res.body.data.month;
  // The Ready to Assign category of each month carries the same figure.
  expect(m.categories.find((c: any) => c.name === 'Inflow: Ready to Assign').balance).toBe(m.to_be_budgeted);
  return m.to_be_budgeted;
}

describe('assigned in future', () => {
  /** This month gets `amount` of income, so its Ready to Assign holds a known sum. */
  async function income(amount: number) {
    await demo.create({ amount, category_id: demo.cat['Inflow: Ready to Assign'].id, payee_name: 'Bonus', approved: true });
  }

  it('reduces Ready to Assign in this month and every month up to the one assigned in; earlier months keep theirs', async () => {
    await assign('Hobbies', NEXT, 0);
    await income(100_000);
    const before = { prev: await rta(PREV), cur: await rta(CUR) };
    expect(before.cur).toBeGreaterThanOrEqual(100_000);
    await assign('Vacation', NEXT, 40_000);
    const afterNext = { prev: await rta(PREV), cur: await rta(CUR), next: await rta(NEXT) };
    expect([afterNext.prev - before.prev, afterNext.cur - before.cur]).toEqual([0, -40_000]);

    await assign('Vacation', AFTER, 25_000);
    expect(await rta(PREV)).toBe(before.prev);
    expect((await rta(CUR)) - before.cur).toBe(-65_000);
    expect((await rta(NEXT)) - afterNext.next).toBe(-25_000);
    // From this month on each month's figure already leaves out every later assignment, so the
    // next one differs only by this month's cash overspending (none in December): the furthest
    // month holds the most up-to-date figure.
    const months = (await sb.get(`${b}/months`)).body.data.months;
    expect(months.at(-1).month).toBe(AFTER);
    const [cur, next, after] = [CUR, NEXT, AFTER].map((m) => months.find((x: any) => x.month === m).to_be_budgeted);
    expect(next).toBeLessThanOrEqual(cur);
    expect(after).toBe(next);

    // Taking it back gives it back to every month.
    await assign('Vacation', AFTER, 0);
    await assign('Vacation', NEXT, 0);
    expect(await rta(CUR)).toBe(before.cur);
  });

  // YNAB's help, "Assigning Money in Future Months" (https://docs.youneedabudget.com/article/230-future-budgeting):
  // with money assigned in the future, "Ready to Assign will remain $0.00 in the current month—and
  // the $200 will be taken from the future month's Ready to Assign"; "When Ready to Assign is
  // Negative: An Overview" (https://support.ynab.com/en_us/when-ready-to-assign-is-negative-an-overview-HylZA0zCc):
  // "you may not see a negative Ready to Assign in the current month due to overassigning in the
  // future. It can appear as if Ready to Assign is at $0.00".
  it('assigning more in a future month than Ready to Assign holds leaves this month at 0.00 and makes that month negative', async () => {
    await income(50_000);
    // This month's cash overspending comes off next month's Ready to Assign: measured with a
    // small assignment there, which this month can pay for.
    await assign('Hobbies', NEXT, 1_000);
    const spill = (await rta(CUR)) - (await rta(NEXT));
    await assign('Hobbies', NEXT, 0);
    const held = await rta(CUR);
    const prev = await rta(PREV);
    expect(held).toBeGreaterThanOrEqual(50_000);

    // Issue 24's case: this month's Ready to Assign + 10.00, assigned next month.
    await assign('Vacation', NEXT, held + 10_000);
    expect(await rta(PREV)).toBe(prev);
    expect(await rta(CUR)).toBe(0);
    expect(await rta(NEXT)).toBe(-10_000 - spill);
    expect((await sb.get(`${b}/months/current`)).body.data.month.to_be_budgeted).toBe(0);

    // Further ahead: each month gives what it holds, the furthest one shows what is missing.
    await assign('Vacation', NEXT, held - 20_000);
    await assign('Vacation', AFTER, 30_000);
    expect([await rta(CUR), await rta(NEXT), await rta(AFTER)]).toEqual([0, 0, -10_000 - spill]);

    // Assigning more this month takes it from the future month; this month stays at 0.00.
    await assign('Hobbies', CUR, (await sb.get(`${b}/months/${CUR}/categories/${demo.cat['Hobbies'].id}`)).body.data.category.budgeted + 5_000);
    expect([await rta(CUR), await rta(AFTER)]).toEqual([0, -15_000 - spill]);

    // Un-assigning in the future gives it back.
    await assign('Vacation', AFTER, 0);
    await assign('Vacation', NEXT, 0);
    expect(await rta(CUR)).toBe(held - 5_000);
  });

  it('a month overassigned by itself stays negative, whatever is assigned later', async () => {
    const held = await rta(CUR);
    const hobbies = (await sb.get(`${b}/months/${CUR}/categories/${demo.cat['Hobbies'].id}`)).body.data.category.budgeted;
    await assign('Hobbies', CUR, hobbies + held + 7_000);
    expect(await rta(CUR)).toBe(-7_000);
    await assign('Vacation', NEXT, 3_000);
    expect(await rta(CUR)).toBe(-7_000);
    await assign('Vacation', NEXT, 0);
    await assign('Hobbies', CUR, hobbies);
    expect(await rta(CUR)).toBe(held);
  });

  it("takes this month's cash overspending from next month's Ready to Assign, not this month's", async () => {
    await assign('Hobbies', NEXT, 1_000);
    const stuff = (await sb.get(`${b}/months/${CUR}/categories/${demo.cat['Stuff I Forgot to Budget For'].id}`)).body.data.category;
    const cur0 = await rta(CUR);
    const next0 = await rta(NEXT);
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: {
        account_id: demo.acc.checking.id,
        date: TODAY,
        amount: -(Math.max(0, stuff.balance) + 33_000),
        category_id: demo.cat['Stuff I Forgot to Budget For'].id,
      },
    });
    expect(res.status).toBe(201);
    expect(await rta(CUR)).toBe(cur0);
    expect((await rta(NEXT)) - next0).toBe(-(33_000 - Math.max(0, -stuff.balance)));
  });

  it('leaves a past month as it closed whatever is assigned later', async () => {
    const prev0 = await rta(PREV);
    await assign('Clothing', CUR, 12_345);
    await assign('Clothing', NEXT, 6_789);
    expect(await rta(PREV)).toBe(prev0);
    // Assigning in the past month itself is that month's own action: it changes from there on.
    const cur0 = await rta(CUR);
    const past = (await sb.get(`${b}/months/${PREV}/categories/${demo.cat['Clothing'].id}`)).body.data.category;
    await assign('Clothing', PREV, past.budgeted + 1_000);
    expect([(await rta(PREV)) - prev0, (await rta(CUR)) - cur0]).toEqual([-1_000, -1_000]);
  });
});

describe('how far ahead months exist', () => {
  it('runs to the current month, or the furthest month money is assigned in, at most twelve months ahead', async () => {
    const list = async () => (await sb.get(`${b}/months`)).body.data.months.map((m: any) => m.month);
    for (const m of (await list()).filter((x: string) => x > CUR)) {
      const month = (await sb.get(`${b}/months/${m}`)).body.data.month;
      for (const c of month.categories) if (c.budgeted) await assign(c.name, m, 0);
    }
    expect((await list()).at(-1)).toBe(CUR);
    const beyond = await sb.get(`${b}/months/${NEXT}`);
    expect(beyond.status).toBe(404);
    expect(beyond.body.error.detail).toContain(`to ${CUR}`);

    const twelve = '2027-11-01';
    await assign('New Car', twelve, 10_000);
    expect((await list()).at(-1)).toBe(twelve);
    expect((await sb.get(`${b}/months/${NEXT}`)).status).toBe(200);
    const summary = (await sb.get('/plans')).body.data.plans.find((p: any) => p.id === demo.budget.id);
    expect(summary.last_month).toBe(twelve);
    const tooFar = await sb.call('PATCH', `${b}/months/2027-12-01/categories/${demo.cat['New Car'].id}`, { category: { budgeted: 1_000 } });
    expect(tooFar.status).toBe(400);
    expect(tooFar.body.error.detail).toMatch(/up to 2027-11-01/);
    await assign('New Car', twelve, 0);
    expect((await list()).at(-1)).toBe(CUR);
  });
});
