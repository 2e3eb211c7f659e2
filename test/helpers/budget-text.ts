/**
 * Budget text planted for the tests that check it stays data (test/resilience/user-text.test.ts,
 * markup-text.test.ts): a budget, account, category (with a note), payee and memo named with the
 * characters a test is about, made through the real MCP client against the sandbox, and every
 * string of an answer listed with where it is, to look for what survived unescaped.
 */
import { ok, type McpHarness } from './mcp.js';

export interface PlantedText {
  budget: string;
  account: string;
  group: string;
  category: string;
  note: string;
  payee: string;
  memo: string;
}

export interface Planted {
  budgetId: string;
  ids: { account_id: string; category_id: string; transaction_id: string; payee_id: string };
}

export async function plantBudgetText(h: McpHarness, t: PlantedText): Promise<Planted> {
  const today = new Date().toISOString().slice(0, 10);
  // The API cannot rename a budget; the service's data can hold any name.
  h.sb.state.budgets[0]!.rec.name = t.budget;
  const budgetId = h.sb.state.budgets[0]!.rec.id;
  const account_id = ok(await h.call('create_account', { name: t.account, type: 'checking', balance: 10 })).account.id;
  const group = ok(await h.call('create_category_group', { name: t.group })).category_group.id;
  const category_id = ok(await h.call('create_category', { name: t.category, category_group_id: group, note: t.note })).category.id;
  const created = ok(
    await h.call('create_transactions', {
      transactions: [{ account_id, date: today, amount: -2, payee_name: t.payee, memo: t.memo, category_id }],
    }),
  );
  return { budgetId, ids: { account_id, category_id, transaction_id: created.transaction_ids[0], payee_id: created.transactions[0].payee_id } };
}

/** Every string in a value (keys too), with where it is. */
export function strings(value: unknown, where = ''): [string, string][] {
  if (typeof value === 'string') return [[where, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${where}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [[`${where}.${k} (key)`, k] as [string, string], ...strings(v, `${where}.${k}`)]);
  return [];
}
