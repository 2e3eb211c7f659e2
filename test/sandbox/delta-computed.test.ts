/**
 * The computed entities of a budget export's delta (months, categories, accounts) after writes of
 * every reach: a transaction months back and its deletion, an assignment in a past month, a goal
 * change, a transaction this month. Every write is checked against the raw API. Any month,
 * category or account whose value differs between the full budget before and after the write is
 * in the delta since the knowledge before it. A write this month leaves earlier months out. The
 * sandbox reuses the fingerprints of what a write cannot have moved (store/fingerprints.ts), so
 * this is what shows it reuses none that did move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let b: string;
let checking: any;
let category: any;
let other: any;

const today = () => new Date().toISOString().slice(0, 10);
const monthsBack = (n: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - n, 15)).toISOString().slice(0, 10);
};
const firstOf = (date: string) => `${date.slice(0, 8)}01`;

beforeAll(async () => {
  sb = await testSandbox();
  b = `/budgets/${(await sb.get('/budgets')).body.data.budgets[0].id}`;
  checking = (await sb.get(`${b}/accounts`)).body.data.accounts.find((a: any) => a.type === 'checking' && !a.closed);
  const cats = (await sb.get(`${b}/categories`)).body.data.category_groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories);
  category = cats.find((c: any) => !c.hidden && !c.deleted && c.goal_type === null) ?? cats.find((c: any) => !c.hidden && !c.deleted);
  other = cats.find((c: any) => !c.hidden && !c.deleted && c.id !== category.id);
});

afterAll(() => sb.close());

/** The whole budget's computed entities by id (months by month), each as its JSON. */
async function computed(): Promise<{ knowledge: number; months: Map<string, string>; categories: Map<string, string>; accounts: Map<string, string> }> {
  const { budget, server_knowledge } = (await sb.get(b)).body.data;
  const byId = (rows: any[], key = 'id') => new Map<string, string>(rows.map((r) => [r[key], JSON.stringify(r)]));
  return { knowledge: server_knowledge, months: byId(budget.months, 'month'), categories: byId(budget.categories), accounts: byId(budget.accounts) };
}

const changed = (before: Map<string, string>, after: Map<string, string>) =>
  [...after]
    .filter(([id, json]) => before.get(id) !== json)
    .map(([id]) => id)
    .sort();

/** Makes the write, then checks that the delta since before it holds every computed entity it moved; returns what moved and the delta's months. */
async function write(make: () => Promise<{ status: number; body: any }>): Promise<{ moved: string[]; deltaMonths: string[] }> {
  const before = await computed();
  const res = await make();
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  const after = await computed();
  const delta = (await sb.get(`${b}?last_knowledge_of_server=${before.knowledge}`)).body.data.budget;
  const deltaMonths = delta.months.map((m: any) => m.month).sort();
  const movedMonths = changed(before.months, after.months);
  expect(deltaMonths).toEqual(expect.arrayContaining(movedMonths));
  expect(delta.categories.map((c: any) => c.id)).toEqual(expect.arrayContaining(changed(before.categories, after.categories)));
  expect(delta.accounts.map((a: any) => a.id)).toEqual(expect.arrayContaining(changed(before.accounts, after.accounts)));
  return { moved: movedMonths, deltaMonths };
}

describe('the delta of computed entities', () => {
  it('holds every month, category and account a write moved, whatever its reach', async () => {
    const past = monthsBack(3);
    let pastId = '';
    // Months back: that month and every later one move (their balances carry it).
    const back = await write(async () => {
      const r = await sb.call('POST', `${b}/transactions`, {
        transaction: { account_id: checking.id, date: past, amount: -23_450, payee_name: 'Delta Past', category_id: category.id },
      });
      pastId = r.body.data?.transaction?.id;
      return r;
    });
    expect(back.moved).toContain(firstOf(past));
    expect(back.moved.length).toBeGreaterThan(1);

    // Filed under another category: the months' totals stay, two categories' figures move.
    const moved = await write(() => sb.call('PUT', `${b}/transactions/${pastId}`, { transaction: { category_id: other.id } }));
    expect(moved.moved).toContain(firstOf(past));

    // An assignment in a past month.
    await write(() => sb.call('PATCH', `${b}/months/${firstOf(monthsBack(2))}/categories/${category.id}`, { category: { budgeted: 77_000 } }));

    // A goal: every month shows it.
    const goal = await write(() => sb.call('PATCH', `${b}/categories/${category.id}`, { category: { goal_target: 150_000 } }));
    expect(goal.moved.length).toBeGreaterThan(2);

    // This month: earlier months are not in the delta.
    const now = await write(() =>
      sb.call('POST', `${b}/transactions`, {
        transaction: { account_id: checking.id, date: today(), amount: -1_230, payee_name: 'Delta Now', category_id: category.id },
      }),
    );
    expect(now.deltaMonths.filter((m) => m < firstOf(today()))).toEqual([]);

    // Back as it was: the months move again, and are in the delta again.
    const undone = await write(() => sb.call('DELETE', `${b}/transactions/${pastId}`));
    expect(undone.moved).toContain(firstOf(past));

    // The goal taken off and put back: the months it shows in move twice.
    await write(() => sb.call('PATCH', `${b}/categories/${category.id}`, { category: { goal_target: null } }));
    await write(() => sb.call('PATCH', `${b}/categories/${category.id}`, { category: { goal_target: 150_000 } }));
  });
});
