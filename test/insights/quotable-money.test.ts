/**
 * Every money figure ready to quote (issue 43, items 1 and 2): every insight tool's answer and
 * every task write's answer, previews and applied writes, compact and full, on every demo budget,
 * through the real MCP client on the sandbox. The answers are walked, and the test fails on
 *  - a money number with no `<name>_formatted` string beside it;
 *  - an answer field named `*_milliunits` (the figure is named by its concept: `amount`, `total`).
 * A number is money unless its name says it counts or measures something else (the list below,
 * NOT_MONEY): an unknown number must be classified here, so a new money field cannot slip by.
 * The server runs with --writes confirm, so every write answers with its preview first; each is
 * then applied with its confirm_token, and the applied answer walked too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

/** Numbers that are not money: counts, days and months, percentages and rates, positions, weekdays. */
const NOT_MONEY = new RegExp(
  '^(' +
    [
      // counts
      'count|[a-z_]*_count|[a-z_]*_sides|[a-z_]*_more|more|returned|updated|created|reconciled|deleted|skipped|matched|unchanged|checked|would_change|reconciled_left_out|left_alone',
      'rows|new|conflict|to_clear|cleared|groups|dates|transactions|agreeing|queue_size|unapproved|uncategorized|old|payments',
      'position|open|fully_funded|overspent_categories|unapproved_left|unapproved_uncategorized|moved_transactions|moved_scheduled|queue_grew',
      'overspent|due_underfunded|payment_short|reconcile_due|increased|by_rule|before_this_month',
      // time and positions
      'age_seconds|age_of_money|line|day|days|[a-z_]*_days|[a-z_]*_weeks|months|[a-z_]*_months|months_saved|digest_day|digest_hour',
      // shares and rates
      '[a-z_]*_pct|[a-z_]*_percent|percent[a-z_]*|[a-z_]*_percentage|rate|[a-z_]*_rate|confidence',
    ].join('|') +
    ')$',
);

/** Members that are another tool's arguments, in that tool's own names (the vocabulary's `args` kind): move_money's `amount_milliunits`. */
const ARGS = new Set(['cover_with_move_money']);

export interface Finding {
  path: string;
  why: string;
}

/**
 * Walks an answer: money numbers without their formatted text, and *_milliunits fields. Numbers
 * under a member whose name says it counts (`payments: { as_is: 113 }`) are counts too; a list of
 * numbers is quotable when the same list formatted sits beside it (`as_is`, `as_is_formatted`).
 */
export function unquotable(value: unknown, path = '', counts = false): Finding[] {
  const out: Finding[] = [];
  if (Array.isArray(value)) {
    value.forEach((x, i) => {
      if (typeof x === 'number') out.push({ path: `${path}[${i}]`, why: 'a bare number in a list (give it a name and its formatted text)' });
      else out.push(...unquotable(x, `${path}[${i}]`, counts));
    });
    return out;
  }
  if (!value || typeof value !== 'object') return out;
  const o = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    const at = path ? `${path}.${k}` : k;
    const text = o[`${k}_formatted`];
    if (ARGS.has(k)) continue;
    if (/_milliunits$/.test(k)) out.push({ path: at, why: 'a *_milliunits field (name it by its concept)' });
    else if (typeof v === 'number') {
      if (!counts && !NOT_MONEY.test(k) && typeof text !== 'string') out.push({ path: at, why: `a number with no ${k}_formatted beside it` });
    } else if (Array.isArray(v) && v.every((x) => typeof x === 'number') && Array.isArray(text) && text.length === v.length) continue;
    else if (isMap(v) && isMap(text)) out.push(...byKey(v, text, at));
    else out.push(...unquotable(v, at, counts || (!Array.isArray(v) && NOT_MONEY.test(k))));
  }
  return out;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Figures keyed by a name or a strategy (`interest: { as_is: n }` beside `interest_formatted: {
 * as_is: "…" }`): each number, or list of numbers, needs its text under the same key.
 */
function byKey(v: Record<string, unknown>, text: Record<string, unknown>, at: string): Finding[] {
  const out: Finding[] = [];
  for (const [key, x] of Object.entries(v)) {
    const t = text[key];
    const list = Array.isArray(x) && x.every((y) => typeof y === 'number');
    if (typeof x === 'number' ? typeof t !== 'string' : list && !(Array.isArray(t) && t.length === (x as unknown[]).length))
      out.push({ path: `${at}.${key}`, why: `a figure with no text under ${key} beside it` });
    else if (!list && typeof x !== 'number') out.push(...unquotable(x, `${at}.${key}`));
  }
  return out;
}

let h: McpHarness;
const found: Finding[] = [];

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'quotable-money' }, flags: { writes: 'confirm', toolsets: 'all' } });
});
afterAll(() => h.close());

/** Calls a tool, and records what in its answer cannot be quoted. */
async function walked(label: string, name: string, args: Record<string, unknown>): Promise<any> {
  const res = ok(await h.call(name, args));
  if (process.env.QUOTABLE_DUMP) console.log(label, name, JSON.stringify(res).length, JSON.stringify(res).slice(0, 6000));
  // One finding per field of a tool (rows' indexes dropped), so a failure lists each once.
  for (const f of unquotable(res)) {
    const path = `${name} ${f.path.replace(/\[\d+\]/g, '[]')}`;
    if (!found.some((x) => x.path === path)) found.push({ path, why: `${f.why} (${label})` });
  }
  return res;
}

const INSIGHTS: readonly [string, Record<string, unknown>][] = [
  ['spending_summary', {}],
  ['spending_summary', { group_by: 'month' }],
  ['spending_summary', { group_by: 'payee' }],
  ['spending_summary', { group_by: 'category_group' }],
  ['cash_flow', {}],
  ['upcoming', {}],
  ['forecast', {}],
  ['recurring', {}],
  ['debt_payoff', {}],
  ['targets_summary', {}],
  ['credit_cards', {}],
  ['credit_cards', { include_lines_of_credit: true }],
];

describe('every money figure is quotable', () => {
  it('insight answers, compact and full, on every demo budget', async () => {
    found.length = 0;
    for (const b of h.sb.state.budgets)
      for (const detail of ['compact', 'full'])
        for (const [name, args] of INSIGHTS) await walked(`${b.rec.name} ${detail}`, name, { budget_id: b.id, detail, ...args });
    expect(found).toEqual([]);
  });
});

/** What the writes work on in a budget, picked from the API's raw data (not from this server). */
async function picks(budget: string) {
  const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
  const accounts = (await get('/accounts')).accounts.filter(
    (a: any) => !a.deleted && !a.closed && a.on_budget && ['checking', 'savings', 'cash'].includes(a.type),
  );
  const groups = (await get('/categories')).category_groups.filter(
    (g: any) => !g.hidden && !g.deleted && !['Internal Master Category', 'Credit Card Payments'].includes(g.name),
  );
  const categories = groups.flatMap((g: any) => g.categories).filter((c: any) => !c.hidden && !c.deleted && c.balance > 10_000);
  const txns = (await get('/transactions?since_date=2000-01-01')).transactions.filter((t: any) => !t.deleted);
  const plain = txns
    .filter((t: any) => t.account_id === accounts[0].id && t.amount < -10_000 && t.category_id && !t.transfer_account_id && !t.subtransactions.length)
    .sort((a: any, b: any) => b.date.localeCompare(a.date));
  const payees = (await get('/payees')).payees.filter((p: any) => !p.deleted && !p.transfer_account_id);
  const used = new Map<string, number>();
  for (const t of txns) if (t.payee_id) used.set(t.payee_id, (used.get(t.payee_id) ?? 0) + 1);
  const merged = payees.filter((p: any) => used.has(p.id)).sort((a: any, b: any) => used.get(a.id)! - used.get(b.id)!);
  // A transaction waiting for approval: the demo's own, or (on days its queue holds only transfers) one made here, uncleared.
  const unapproved =
    txns.find((t: any) => !t.approved && !t.transfer_account_id) ??
    (
      await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: accounts[0].id, date: new Date().toISOString().slice(0, 10), amount: -4_560, payee_name: 'Quotable Cafe', approved: false },
      })
    ).body.data.transaction;
  return { accounts, categories, plain, unapproved, merged, cleared: accounts[0].cleared_balance as number };
}

/**
 * A write held for its preview (walked), then applied with its confirm_token (walked too). With
 * `apply` false only the first answer: a preview, or the answer of a write that holds nothing
 * (a reconcile with a difference explains it instead).
 */
async function write(label: string, name: string, args: Record<string, unknown>, apply = true): Promise<void> {
  const preview = await walked(`${label} preview`, name, args);
  if (!apply) return;
  expect(preview.confirm_token, `${name} answers with a preview in --writes confirm`).toEqual(expect.any(String));
  await walked(`${label} applied`, name, { ...args, confirm_token: preview.confirm_token });
}

describe('every task write reports quotable money', () => {
  it('previews and applied writes on every demo budget', async () => {
    found.length = 0;
    const today = new Date().toISOString().slice(0, 10);
    for (const b of h.sb.state.budgets) {
      const p = await picks(b.id);
      const at = (args: Record<string, unknown>) => ({ budget_id: b.id, ...args });
      const [a, a2] = p.accounts;
      const [c1, c2] = p.categories;
      const [t1, t2, t3] = p.plain.filter((t: any) => t.category_id !== c1.id && t.category_id !== c2.id);
      const L = b.rec.name;
      await write(L, 'create_transfer', at({ from_account_id: a.id, to_account_id: a2.id, amount_milliunits: 1_230 }));
      await write(L, 'move_money', at({ from_category_id: c1.id, to_category_id: c2.id, amount_milliunits: 2_000 }));
      // Something in Ready to Assign to fund with (on some days the demo's month has it all assigned): 50.00 of c1's.
      const month = (await h.sb.get(`/budgets/${b.id}/months/current/categories/${c1.id}`)).body.data.category;
      ok((await confirmed(h, 'update_month_category', at({ month: 'current', category_id: c1.id, budgeted: (month.budgeted - 50_000) / 1000 }))).result);
      await write(L, 'fund_targets', at({ option: 'underfunded' }));
      await write(L, 'approve_transactions', at({ transaction_ids: [p.unapproved.id] }));
      await write(L, 'recategorize_transactions', at({ transaction_ids: [t2.id], new_category_id: c2.id }));
      const half = Math.round(t3.amount / 2000) * 1000;
      await write(
        L,
        'split_transaction',
        at({
          transaction_id: t3.id,
          subtransactions: [
            { amount_milliunits: half, category_id: c1.id },
            { amount_milliunits: t3.amount - half, category_id: c2.id },
          ],
        }),
      );
      const content = `Date,Payee,Amount\n${t1.date},"${t1.payee_name}",${(t1.amount / 1000).toFixed(2)}\n${today},"Quotable Kiosk",-3.17\n`;
      await write(L, 'import_statement', at({ account_id: a2.id, content }));
      await write(L, 'reconcile_account', at({ account_id: a.id, statement_balance_milliunits: p.cleared - 12_340, content }), false);
      const cleared = (await h.sb.get(`/budgets/${b.id}/accounts/${a2.id}`)).body.data.account.cleared_balance;
      await write(L, 'reconcile_account', at({ account_id: a2.id, statement_balance_milliunits: cleared }));
      // Something the rule changes on any day (the imported kiosk row is reconciled by now): a row of last month's, uncleared.
      const lastMonth = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
      const corner = { account_id: a2.id, date: lastMonth, amount: -2_180, payee_name: 'Quotable Corner' };
      expect((await h.sb.call('POST', `/budgets/${b.id}/transactions`, { transaction: corner })).status).toBe(201);
      await walked(L, 'set_rule', at({ match: { text: { kind: 'contains', value: 'Quotable' } }, set: { memo: 'quoted' } }));
      const rules = await walked(L, 'list_rules', at({}));
      await write(L, 'apply_rules', at({}), false);
      await walked(L, 'suggest_rules', at({ limit: 20 }));
      await write(L, 'merge_payees', at({ from_payee_id: p.merged[0].id, to_payee_id: p.merged[1].id }));
      await walked(L, 'alerts', at({}));
      for (const r of rules.rules) await walked(L, 'delete_rule', at({ id: r.id }));
    }
    expect(found).toEqual([]);
  });
});
