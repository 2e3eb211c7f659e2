/**
 * The twelve typical assistant questions of the answers bench, each with how it is answered with
 * the insight tools (one call) and with the API tools alone (as an assistant would chain them,
 * following every page). Shared by the bench (bench/answers.bench.ts: calls, bytes, requests) and
 * the test that holds every insight answer to the 2 KB rule (test/insights/answer-size.test.ts),
 * so both ask exactly the same thing. Dates are relative to today (UTC), like the demo budgets.
 */

/** Calls a tool and returns its structured content (throws on a tool error). */
export type Call = (name: string, args?: Record<string, unknown>) => Promise<any>;

/** A question, and how it is answered with insights and with the API tools alone. */
export interface Question {
  question: string;
  insights: (call: Call) => Promise<unknown>;
  api: (call: Call) => Promise<unknown>;
}

/** Every page of a paged list tool, as an assistant following next_cursor would fetch them. */
export async function allPages(call: Call, name: string, args: Record<string, unknown>): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(name, { ...args, ...(cursor ? { cursor } : {}) });
    items.push(...(page.transactions ?? page.scheduled_transactions ?? page.payees ?? []));
    cursor = page.has_more ? page.next_cursor : undefined;
  } while (cursor);
  return items;
}

export const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
export const monthStart = (offset: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1)).toISOString().slice(0, 10);
};
export const monthEnd = (offset: number) => new Date(Date.parse(`${monthStart(offset + 1)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const yearStart = () => `${new Date().getUTCFullYear()}-01-01`;

const payeeId = async (call: Call, name: string) => (await allPages(call, 'list_payees', {})).find((p: any) => p.name === name)?.id;
const categoryId = async (call: Call, name: string) =>
  (await call('list_categories', { include_all: true })).category_groups.flatMap((g: any) => g.categories).find((c: any) => c.name === name)?.id;

export const QUESTIONS: readonly Question[] = [
  {
    question: 'What did we spend on dining out last month?',
    insights: (call) => call('spending_summary', { month: monthStart(-1), category_id: 'Dining Out' }),
    api: (call) => call('get_month', { month: monthStart(-1) }),
  },
  {
    question: 'Where did our money go this month?',
    insights: (call) => call('spending_summary', {}),
    api: (call) => call('get_month', { month: 'current' }),
  },
  {
    question: 'What needs my attention?',
    insights: (call) => call('needs_attention'),
    api: async (call) => {
      await allPages(call, 'list_transactions', { type: 'unapproved', since_date: '2000-01-01' });
      await allPages(call, 'list_transactions', { type: 'uncategorized', since_date: '2000-01-01' });
      await call('get_month', { month: 'current' });
      await call('list_accounts');
      await allPages(call, 'list_scheduled_transactions', {});
    },
  },
  {
    question: 'How much have we spent at Costco this year?',
    insights: (call) => call('search_transactions', { query: 'costco', since_date: yearStart(), limit: 5 }),
    api: async (call) => allPages(call, 'list_payee_transactions', { payee_id: await payeeId(call, 'Costco'), since_date: yearStart() }),
  },
  {
    question: 'Which coffee purchases last month were over $5?',
    insights: (call) =>
      call('search_transactions', { category_id: 'Coffee', min_amount: 5, direction: 'outflow', since_date: monthStart(-1), until_date: monthEnd(-1) }),
    api: async (call) =>
      allPages(call, 'list_category_transactions', { category_id: await categoryId(call, 'Coffee'), since_date: monthStart(-1), until_date: monthEnd(-1) }),
  },
  {
    question: 'Are we earning more than we spend (last 6 months)?',
    insights: (call) => call('cash_flow'),
    api: (call) => call('list_months'),
  },
  {
    question: 'What bills are due in the next two weeks?',
    insights: (call) => call('upcoming', { days: 14 }),
    api: async (call) => allPages(call, 'list_scheduled_transactions', {}),
  },
  {
    question: 'Will checking cover everything scheduled this month?',
    insights: (call) => call('upcoming', { days: 30 }),
    api: async (call) => {
      await call('list_accounts');
      await allPages(call, 'list_scheduled_transactions', {});
    },
  },
  {
    question: 'Which categories are overspent?',
    insights: (call) => call('needs_attention'),
    api: (call) => call('get_month', { month: 'current' }),
  },
  {
    question: 'How much did groceries cost each month this year?',
    insights: (call) => call('spending_summary', { since_date: yearStart(), until_date: monthEnd(0), group_by: 'month', category_id: 'Groceries' }),
    api: async (call) => allPages(call, 'list_category_transactions', { category_id: await categoryId(call, 'Groceries'), since_date: yearStart() }),
  },
  {
    question: 'What have we paid State Farm, and when?',
    insights: (call) => call('search_transactions', { query: 'state farm' }),
    api: async (call) => allPages(call, 'list_payee_transactions', { payee_id: await payeeId(call, 'State Farm'), since_date: '2000-01-01' }),
  },
  {
    question: 'How has our net worth changed over the year?',
    insights: (call) => call('cash_flow', { months: 12 }),
    api: async (call) => {
      await call('list_accounts');
      await allPages(call, 'list_transactions', { since_date: day(-365) });
    },
  },
];
