/**
 * Every write reports the state after it (issue 58 item 3): each write tool of the tool tables
 * (an API write or a task write; a new one without a case here fails the first test) is run on
 * "Demo Household", on three seeds and two dates (the middle of a month and the first of one), and
 * its answer's after-state is compared with the API's, read raw from the sandbox over HTTP:
 *  - `accounts`: each row's working, cleared and uncleared balance as the API has the account;
 *  - `categories`: each row's assigned and available in its month as the API has them;
 *  - Ready to Assign: given, as the API has it, whenever the write moved it;
 *  - what the write touched is there: "Delete the duplicate, and what's the Visa's balance now?"
 *    finds the Visa among delete_transaction's accounts.
 */
import { REHEARSAL_ONLY } from '../../src/mcp/tools/toolsets.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_TOOLS, TASK_TOOLS } from '../../src/mcp/tools/definitions.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { shiftMonth, usd } from '../insights/raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
/** The middle of this month, and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'every-write-a', 'every-write-b'];

/** The write tools, from the tool tables. */
// apply_rehearsal needs a rehearsal beside the budget: its after-state is checked in apply-rehearsal.test.ts.
const WRITE_TOOLS = [...API_TOOLS, ...TASK_TOOLS].filter((t) => t.access === 'write' && !REHEARSAL_ONLY.has(t.name)).map((t) => t.name);

interface Ctx {
  h: McpHarness;
  today: string;
  /** A transaction made through the server (its copy knows it); its id. */
  txn(account: string, amount: number, category: string, extra?: Record<string, unknown>): Promise<string>;
  id(kind: 'accounts' | 'payees', name: string): Promise<string>;
  /** The API's raw data at a path of the budget. */
  get(path: string): Promise<any>;
}

/** A write tool's case: its arguments (after any setup), and the accounts and categories it must report after. */
interface Case {
  args(c: Ctx): Promise<Record<string, unknown>>;
  /** The accounts it must report: names, or named by its answer (an import's transactions). */
  accounts?: string[] | ((res: any) => string[]);
  categories?: string[];
}

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

const CASES: Record<string, Case> = {
  create_account: { args: async () => ({ name: 'After Account', type: 'checking', balance: 100 }), accounts: ['After Account'] },
  create_category: { args: async () => ({ name: 'After Category', category_group_id: 'Bills' }), categories: ['After Category'] },
  update_category: { args: async () => ({ category_id: 'Groceries', note: 'after' }), categories: ['Groceries'] },
  update_month_category: { args: async () => ({ month: 'current', category_id: 'Fun Money', budgeted: 77.77 }), categories: ['Fun Money'] },
  create_category_group: { args: async () => ({ name: 'After Group' }) },
  update_category_group: { args: async () => ({ category_group_id: 'Quality of Life', name: 'Quality of Life After' }) },
  create_payee: { args: async () => ({ name: 'After Payee' }) },
  update_payee: { args: async (c) => ({ payee_id: await c.id('payees', 'Chipotle'), name: 'Chipotle After' }) },
  create_transactions: {
    args: async (c) => ({ transactions: [{ account_id: 'Visa Rewards', date: c.today, amount: -12.34, payee_name: 'Safeway', category_id: 'Groceries' }] }),
    accounts: ['Visa Rewards'],
    // Spending on the card moves its money into the card's payment category.
    categories: ['Groceries', 'Visa Rewards'],
  },
  update_transactions: {
    args: async (c) => ({ transactions: [{ id: await c.txn('Everyday Checking', -21.5, 'Dining Out'), amount: -25 }] }),
    accounts: ['Everyday Checking'],
    categories: ['Dining Out'],
  },
  import_transactions: { args: async () => ({}), accounts: (res) => [...new Set<string>(res.transactions.map((t: any) => t.account_name))] },
  update_transaction: {
    args: async (c) => ({ transaction_id: await c.txn('Wallet', -8, 'Coffee'), category_id: 'Dining Out' }),
    categories: ['Coffee', 'Dining Out'],
  },
  delete_transaction: {
    args: async (c) => ({ transaction_id: await c.txn('Visa Rewards', -42.1, 'Groceries') }),
    accounts: ['Visa Rewards'],
    categories: ['Groceries', 'Visa Rewards'],
  },
  delete_transactions: {
    args: async (c) => ({ transaction_ids: [await c.txn('Visa Rewards', -11.5, 'Groceries'), await c.txn('Everyday Checking', -7.25, 'Dining Out')] }),
    accounts: ['Visa Rewards', 'Everyday Checking'],
    categories: ['Groceries', 'Dining Out', 'Visa Rewards'],
  },
  create_scheduled_transaction: {
    args: async (c) => ({
      account_id: 'Visa Rewards',
      date: addDays(c.today, 10),
      frequency: 'monthly',
      amount: -15.99,
      payee_name: 'Netflix',
      category_id: 'Subscriptions',
    }),
    accounts: ['Visa Rewards'],
    categories: ['Subscriptions'],
  },
  update_scheduled_transaction: {
    args: async (c) => ({ scheduled_transaction_id: await scheduled(c), account_id: 'Visa Rewards', date: addDays(c.today, 12), amount: -19.99 }),
    accounts: ['Visa Rewards'],
    categories: ['Subscriptions'],
  },
  delete_scheduled_transaction: {
    args: async (c) => ({ scheduled_transaction_id: await scheduled(c) }),
    accounts: ['Visa Rewards'],
    categories: ['Subscriptions'],
  },
  create_transfer: {
    args: async () => ({ from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 40 }),
    accounts: ['Everyday Checking', 'Rainy Day Savings'],
  },
  move_money: {
    args: async () => ({ from_category_id: 'Fun Money', to_category_id: 'Groceries', amount: 5, allow_overspend: true }),
    categories: ['Fun Money', 'Groceries'],
  },
  fund_targets: {
    args: async (c) => {
      // Money to fund with: $300 taken back from the Rainy Day Fund into Ready to Assign.
      const rainy = (await c.get(`/months/current`)).month.categories.find((x: any) => x.name === 'Rainy Day Fund');
      ok(await c.h.call('update_month_category', { month: 'current', category_id: rainy.id, budgeted_milliunits: rainy.budgeted - 300_000 }));
      return { option: 'underfunded', category_group_id: 'Bills' };
    },
  },
  approve_transactions: { args: async (c) => ({ transaction_ids: [await c.txn('Wallet', -3, 'Coffee', { approved: false })] }) },
  recategorize_transactions: {
    args: async (c) => ({ transaction_ids: [await c.txn('Everyday Checking', -13, 'Dining Out')], new_category_id: 'Groceries' }),
    categories: ['Dining Out', 'Groceries'],
  },
  split_transaction: {
    args: async (c) => ({
      transaction_id: await c.txn('Everyday Checking', -50, 'Groceries'),
      subtransactions: [
        { amount: -30, category_id: 'Groceries' },
        { amount: -20, category_id: 'Household Supplies' },
      ],
    }),
    accounts: ['Everyday Checking'],
    categories: ['Groceries', 'Household Supplies'],
  },
  import_statement: {
    args: async (c) => ({ account_id: 'Wallet', content: `Date,Payee,Amount\n${c.today},Corner Kiosk After,-7.77\n`, since_date: c.today }),
    accounts: ['Wallet'],
  },
  reconcile_account: {
    args: async (c) => {
      const wallet = ok(await c.h.call('get_account', { account_id: 'Wallet' })).account;
      return { account_id: 'Wallet', statement_balance_milliunits: wallet.cleared_balance + 12_340, statement_date: c.today, create_adjustment: true };
    },
    accounts: ['Wallet'],
  },
  apply_rules: {
    args: async (c) => {
      await c.txn('Wallet', -6.5, 'Coffee', { payee_name: 'After Rule Cafe' });
      ok(await c.h.call('set_rule', { match: { text: { kind: 'exact', value: 'After Rule Cafe' } }, set: { category_id: 'Dining Out' } }));
      return { account_id: 'Wallet', since_date: addDays(c.today, -1) };
    },
    categories: ['Coffee', 'Dining Out'],
  },
  merge_payees: {
    args: async (c) => {
      await c.txn('Wallet', -2, 'Coffee', { payee_name: 'Merge Me After' });
      return { from_payee_id: await c.id('payees', 'Merge Me After'), to_payee_id: await c.id('payees', 'Lardo') };
    },
  },
  undo_change: {
    args: async (c) => ({
      change_id: ok(await c.h.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Coffee', amount: 4, allow_overspend: true })).change_id,
    }),
    categories: ['Fun Money', 'Coffee'],
  },
  set_rule: { args: async () => ({ match: { text: { kind: 'exact', value: 'Nothing After' } }, set: { memo: 'after' } }) },
  delete_rule: {
    args: async (c) => ({ id: ok(await c.h.call('set_rule', { match: { text: { kind: 'exact', value: 'Gone After' } }, set: { memo: 'x' } })).rule.id }),
  },
};

/** A scheduled transaction on the Visa in Subscriptions, made through the server; its id. */
async function scheduled(c: Ctx): Promise<string> {
  const made = ok(
    await c.h.call('create_scheduled_transaction', {
      account_id: 'Visa Rewards',
      date: addDays(c.today, 12),
      frequency: 'monthly',
      amount: -11.11,
      payee_name: 'Netflix',
      category_id: 'Subscriptions',
    }),
  );
  return made.scheduled_transaction.id;
}

/** Calls a write; a preview is confirmed with its token. */
async function write(h: McpHarness, name: string, args: Record<string, unknown>): Promise<any> {
  const first = ok(await h.call(name, args));
  if (!first.preview || typeof first.confirm_token !== 'string') return first;
  return ok(await h.call(name, { ...args, confirm_token: first.confirm_token }));
}

it('every write tool of the tool tables has a case here', () => {
  expect(WRITE_TOOLS.filter((t) => !CASES[t])).toEqual([]);
});

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('every write reports its after-state, seed %s on %s', (seed, today) => {
  let h: McpHarness;
  let b: string;
  const month = `${today.slice(0, 7)}-01`;
  const get = async (path: string) => (await h.sb.get(`${b}${path}`)).body.data;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${today}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    const budget = (await h.sb.get('/budgets')).body.data.budgets.find((x: any) => x.name === 'Demo Household');
    b = `/budgets/${budget.id}`;
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  const ctx = (): Ctx => ({
    h,
    today,
    txn: async (account, amount, category, extra = {}) =>
      ok(
        await h.call('create_transactions', {
          transactions: [{ account_id: account, date: today, amount, payee_name: 'Safeway', category_id: category, ...extra }],
          allow_duplicate: true,
          allow_new_payee: true,
        }),
      ).transaction_ids[0],
    get,
    id: async (kind, name) => (await get(`/${kind}`))[kind].find((x: any) => x.name === name && !x.deleted).id,
  });

  it.each(WRITE_TOOLS.filter((t) => CASES[t]))('%s', async (tool) => {
    const c = CASES[tool]!;
    const args = await c.args(ctx());
    const readyBefore = (await get(`/months/${month}`)).month.to_be_budgeted;
    const res = await write(h, tool, args);
    // Each account row: the API's balances after.
    const accounts: any[] = res.accounts ?? [];
    for (const row of accounts) {
      const a = (await get(`/accounts/${row.account_id}`)).account;
      expect(row).toMatchObject({
        account_name: a.name,
        balance: a.balance,
        balance_formatted: usd(a.balance),
        cleared_balance: a.cleared_balance,
        uncleared_balance: a.uncleared_balance,
      });
    }
    // Each category row: the API's assigned and available in its month after.
    const categories: any[] = res.categories ?? [];
    for (const row of categories) {
      // A task's own rows (fund_targets') give the month once, beside them, and the category by name.
      const m = (await get(`/months/${row.month ?? res.month}`)).month;
      const x = m.categories.find((y: any) => (row.category_id ? y.id === row.category_id : y.name === row.name));
      expect(row).toMatchObject({ name: x.name, assigned: x.budgeted, available: x.balance, available_formatted: usd(x.balance) });
    }
    // What the write touched is among them.
    // An account's balances moved only where its transactions' amounts, accounts or cleared states did (a recategorize moves none).
    const touched = typeof c.accounts === 'function' ? c.accounts(res) : (c.accounts ?? []);
    expect(accounts.map((a) => a.account_name)).toEqual(expect.arrayContaining(touched));
    expect(categories.map((x) => x.name)).toEqual(expect.arrayContaining(c.categories ?? []));
    if (!touched.length) expect(res.accounts).toBeUndefined();
    // Ready to Assign, when the write moved it: as the API has it after.
    const readyAfter = (await get(`/months/${month}`)).month.to_be_budgeted;
    if (readyAfter !== readyBefore) {
      const given = res.ready_to_assign ?? res.ready_to_assign_after;
      expect(given, `${tool} moved Ready to Assign from ${readyBefore} to ${readyAfter}`).toBe(readyAfter);
    }
  });
});

describe('a write that touches many categories', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness({ sandbox: { seed: 'every-write-many' } });
  });
  afterAll(() => h.close());

  it('lists the first 10 with their figures, says how many it touched, and adds at most 3 KB to the answer', async () => {
    const names = [
      'Rent',
      'Electric',
      'Internet',
      'Phone',
      'Groceries',
      'Household Supplies',
      'Dining Out',
      'Fuel',
      'Coffee',
      'Fun Money',
      'Medical',
      'Pet Care',
    ];
    const today = new Date().toISOString().slice(0, 10);
    const res = await h.call('create_transactions', {
      transactions: names.map((category_id, i) => ({ account_id: 'Everyday Checking', date: today, amount: -(1 + i), payee_name: 'Safeway', category_id })),
      allow_duplicate: true,
    });
    const body = ok(res);
    expect(Buffer.byteLength(JSON.stringify({ accounts: body.accounts, categories: body.categories }), 'utf8')).toBeLessThanOrEqual(3072);
    expect(body.categories.map((c: any) => c.name)).toEqual(names.slice(0, 10));
    expect(body.notices).toContain('Only the first 10 of the 12 categories the write touched are shown after it.');
    const budget = (await h.sb.get('/budgets')).body.data.budgets.find((x: any) => x.name === 'Demo Household');
    for (const row of body.categories) {
      const x = (await h.sb.get(`/budgets/${budget.id}/months/${row.month}/categories/${row.category_id}`)).body.data.category;
      expect(row).toMatchObject({ assigned: x.budgeted, available: x.balance, available_formatted: usd(x.balance) });
    }
  });
});
