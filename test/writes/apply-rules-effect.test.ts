/**
 * apply_rules' preview says what it would do to the budget, across three seeds, each today on the
 * middle of a month and on the first of one (this process's clock, which the server and the
 * sandbox share), and two date ranges, through a real MCP client against the sandbox over HTTP: each row's old and new
 * category (from the API's raw transactions), how many rows are reconciled or before this month,
 * reconciled ones left out unless include_reconciled; and the change to Ready to Assign and every
 * category that would go negative, by month, which must be exactly what the API's months say
 * once it is confirmed (the sandbox computes its months on its own).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths, currentMonth } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

/** Today, in turn: the middle of this month and the first of the next (this process's clock, which the server and the sandbox share). */
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
let today = '';
const CASES = ['rules-effect-a', 'rules-effect-b', 'rules-effect-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));
let thisMonth = '';

describe.each(CASES)('apply_rules previews the effect (seed %s on %s)', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let checking: string;
  let card: { id: string; name: string };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    today = date;
    thisMonth = currentMonth();
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    budget = h.sb.state.budgets[0]!.id;
    checking = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
    card = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.type === 'creditCard' && !a.closed)!;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
  /** Every month's Ready to Assign and category balances, from `first` on. */
  async function months(first: string) {
    const list = (await get('/months')).months.filter((m: any) => m.month >= first && !m.deleted);
    const out = new Map<string, { rta: number; balances: Map<string, number> }>();
    for (const m of list) {
      const d = (await get(`/months/${m.month}`)).month;
      out.set(m.month, { rta: d.to_be_budgeted, balances: new Map(d.categories.map((c: any) => [c.id, c.balance])) });
    }
    return out;
  }

  it.each([
    [60, 'checking'],
    [150, 'checking'],
    [90, 'a credit card'],
  ])(
    'rows, counts and the effect by month, as the API has it once applied (since %i days ago, in %s); undo',
    async (back, where) => {
      const since = addDays(today, -back);
      const inAccount = where === 'checking' ? { id: checking, name: 'Everyday Checking' } : card;
      const txns = (await get('/transactions')).transactions.filter((t: any) => !t.deleted);
      const categories = (await get('/categories')).category_groups.flatMap((g: any) =>
        g.hidden || g.name === 'Internal Master Category' || g.name === 'Credit Card Payments' ? [] : g.categories,
      );
      const groups = (await get('/categories')).category_groups;
      const nameOf = new Map<string, string>(groups.flatMap((g: any) => g.categories.map((c: any) => [c.id, c.name])));
      // Ready to Assign is answered apart, not as a category.
      const internal = new Set(groups.filter((g: any) => g.name === 'Internal Master Category').flatMap((g: any) => g.categories.map((c: any) => c.id)));
      // The payee with most categorized purchases in checking since then; its purchases move to the category holding least.
      const mine = (t: any) =>
        t.account_id === inAccount.id && t.date >= since && t.amount < 0 && !t.transfer_account_id && !t.subtransactions.length && t.category_id && t.payee_id;
      const counts = new Map<string, number>();
      for (const t of txns.filter(mine)) counts.set(t.payee_id, (counts.get(t.payee_id) ?? 0) + 1);
      // (One with a row not reconciled yet: on the first of a month a card's rows may all be reconciled.)
      const open = new Set(txns.filter((t: any) => mine(t) && t.cleared !== 'reconciled').map((t: any) => t.payee_id));
      const payee = [...counts].filter(([id]) => open.has(id)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      const target = categories
        .filter((c: any) => !c.hidden && !c.deleted && c.balance > 0)
        .sort((a: any, b: any) => a.balance - b.balance || (a.id < b.id ? -1 : 1))[0];
      const rule = ok(await h.call('set_rule', { match: { payee_id: payee, account_id: inAccount.id }, set: { category_id: target.id } })).rule;
      const hit = txns.filter((t: any) => mine(t) && t.payee_id === payee && t.category_id !== target.id);
      const reconciled = hit.filter((t: any) => t.cleared === 'reconciled');
      const planned = hit.filter((t: any) => t.cleared !== 'reconciled');
      expect(planned.length).toBeGreaterThan(0);
      const args = { account_id: inAccount.name, since_date: since };

      const all = ok(await h.call('apply_rules', { ...args, include_reconciled: true }));
      expect(all.count).toBe(hit.length);
      expect(all.reconciled).toBe(reconciled.length);
      const preview = ok(await h.call('apply_rules', args));
      expect(preview.count).toBe(planned.length);
      expect(preview.reconciled).toBe(0);
      expect(preview.reconciled_left_out).toBe(reconciled.length || undefined);
      expect(preview.before_this_month).toBe(planned.filter((t: any) => t.date < thisMonth).length);
      expect(JSON.stringify(preview).length).toBeLessThanOrEqual(8192);
      for (const row of preview.rows) {
        const t = planned.find((x: any) => x.id === row.id);
        expect(row.changes.category).toEqual({ from: nameOf.get(t.category_id), to: target.name });
      }

      const first = planned.reduce((m: string, t: any) => (t.date.slice(0, 7) + '-01' < m ? t.date.slice(0, 7) + '-01' : m), thisMonth);
      const before = await months(first);
      const done = ok(await h.call('apply_rules', { ...args, confirm_token: preview.confirm_token }));
      expect(done.updated).toBe(planned.length);
      const after = await months(first);
      const rta: any[] = [];
      const negative: any[] = [];
      for (const [m, a] of after) {
        const b = before.get(m)!;
        if (a.rta !== b.rta) rta.push({ month: m, change_milliunits: a.rta - b.rta });
        for (const [c, bal] of a.balances)
          if (!internal.has(c) && bal < 0 && bal !== b.balances.get(c)) negative.push({ month: m, category: nameOf.get(c), after_milliunits: bal });
      }
      const sort = (xs: any[]) => xs.map((x) => JSON.stringify(x)).sort();
      expect(
        preview.ready_to_assign === 'unchanged' ? [] : preview.ready_to_assign.map((x: any) => ({ month: x.month, change_milliunits: x.change_milliunits })),
      ).toEqual(rta);
      expect(sort(preview.going_negative.map((x: any) => ({ month: x.month, category: x.category, after_milliunits: x.after_milliunits })))).toEqual(
        sort(negative),
      );
      ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
      ok(await h.call('delete_rule', { id: rule.id }));
    },
    120_000,
  );
});
