/**
 * `detail: "full"` is every field (issue 43): a transaction row in full detail carries every
 * field the API's schema gives a transaction (the OpenAPI fixture's TransactionDetail, read here
 * from the YAML), whichever tool gives it: search_transactions, review_transactions, and the API
 * tools (every API read whose answer is transactions). Insight rows name the amount as every answer
 * does (`amount`, `amount_formatted`, never the float `amount_currency`); their values are compared
 * with the API's raw transaction, read over HTTP from the sandbox.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_TOOLS } from '../../src/mcp/tools/definitions.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { usd } from './raw.js';

const SPEC = parse(readFileSync(fileURLToPath(new URL('../fixtures/ynab-api/openapi.yaml', import.meta.url)), 'utf8'));

/** A schema's property names, through its allOf parts and references. */
function fieldsOf(name: string): Set<string> {
  const out = new Set<string>();
  const walk = (s: any) => {
    if (s.$ref) return walk(SPEC.components.schemas[s.$ref.split('/').pop()]);
    for (const part of s.allOf ?? []) walk(part);
    for (const k of Object.keys(s.properties ?? {})) out.add(k);
  };
  walk(SPEC.components.schemas[name]);
  return out;
}

/** An insight row's fields for a schema's: the amount with its formatted text, no float companion. */
const asInsight = (fields: Set<string>, drop: string[] = [], add: string[] = []) =>
  new Set([...fields].filter((f) => !['amount_currency', ...drop].includes(f)).concat(...add));

const today = new Date().toISOString().slice(0, 10);
const unique = Date.now().toString(36);
let h: McpHarness;
let budget: string;
let rich: string;
let split: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'full-rows' } });
  budget = h.sb.state.budgets[0]!.id;
  const ids = ok(
    await h.call('create_transactions', {
      transactions: [
        {
          account_id: 'Everyday Checking',
          date: today,
          amount: -12.34,
          payee_name: `Full Row ${unique}`,
          category_id: 'Groceries',
          memo: 'every field',
          flag_color: 'green',
          cleared: 'uncleared',
          approved: false,
          import_id: `YNAB:-12340:${today}:9`,
        },
        {
          account_id: 'Everyday Checking',
          date: today,
          amount: -30,
          payee_name: `Full Row ${unique}`,
          approved: false,
          subtransactions: [
            { amount: -20, category_id: 'Groceries', memo: 'food' },
            { amount: -10, category_id: 'Household Supplies' },
          ],
        },
      ],
    }),
  ).transaction_ids;
  [rich, split] = ids;
});
afterAll(() => h.close());

const rawTransaction = async (id: string) => (await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body.data.transaction;
const sorted = (s: Iterable<string>) => [...s].sort();
/** The raw transaction as an insight row writes it. */
function insightOf(t: any): any {
  const { amount, amount_currency: _c, subtransactions, ...rest } = t;
  return {
    ...rest,
    amount,
    amount_formatted: usd(amount),
    subtransactions: subtransactions.map(({ amount: a, amount_currency: _lc, ...x }: any) => ({ ...x, amount: a, amount_formatted: usd(a) })),
  };
}

describe('detail "full" is every field', () => {
  it('the API tools give every field of the schema', async () => {
    const detail = fieldsOf('TransactionDetail');
    const one = ok(await h.call('get_transaction', { transaction_id: rich, detail: 'full' })).transaction;
    expect(sorted(Object.keys(one))).toEqual(expect.arrayContaining(sorted(detail)));
    expect(one).toEqual(await rawTransaction(rich));
    // Every API read whose answer is transactions (from the tool table, so a new one is covered): each row has the schema's every field.
    const lists = API_TOOLS.filter((t) => t.access === 'read' && t.shape.list && ['transaction', 'hybrid_transaction'].includes(t.shape.kind));
    expect(lists.map((t) => t.name).sort()).toEqual(
      expect.arrayContaining([
        'list_account_transactions',
        'list_category_transactions',
        'list_month_transactions',
        'list_payee_transactions',
        'list_transactions',
      ]),
    );
    const args: Record<string, unknown> = { account_id: 'Everyday Checking', category_id: 'Groceries', payee_id: `Full Row ${unique}`, month: 'current' };
    for (const tool of lists) {
      const shape = tool.input.shape as Record<string, { isOptional(): boolean }>;
      const required = Object.fromEntries(
        Object.keys(shape)
          .filter((k) => !shape[k]!.isOptional())
          .map((k) => [k, args[k]]),
      );
      const rows = ok(await h.call(tool.name, { ...required, since_date: today, detail: 'full' })).transactions;
      const ours = rows.filter((x: any) => x.id === rich || x.id === split || x.parent_transaction_id === split);
      expect(ours.length, tool.name).toBeGreaterThan(0);
      const schema = tool.shape.kind === 'hybrid_transaction' ? 'HybridTransaction' : 'TransactionDetail';
      for (const row of ours) expect(Object.keys(row), tool.name).toEqual(expect.arrayContaining([...fieldsOf(schema)]));
    }
  });

  it("search_transactions: every field of its transaction, the line's own for a split's line", async () => {
    const rows = ok(await h.call('search_transactions', { query: `Full Row ${unique}`, detail: 'full' })).transactions;
    expect(rows).toHaveLength(3);
    const want = sorted(asInsight(fieldsOf('TransactionDetail'), ['subtransactions'], ['transaction_id']));
    for (const row of rows) expect(sorted(Object.keys(row))).toEqual(want);
    const { subtransactions: _s, ...whole } = insightOf(await rawTransaction(rich));
    expect(rows.find((x: any) => x.id === rich)).toEqual({ ...whole, transaction_id: null });
    const t = await rawTransaction(split);
    for (const x of t.subtransactions) {
      expect(rows.find((r: any) => r.id === x.id)).toMatchObject({
        transaction_id: split,
        account_id: t.account_id,
        date: t.date,
        approved: false,
        amount: x.amount,
        category_id: x.category_id,
        category_name: x.category_name,
        memo: x.memo,
      });
    }
  });

  it('review_transactions: every field of the transaction with its lines, then the suggestion and flags', async () => {
    // In the answer vocabulary: the amount in milliunits under its own name, with its formatted text.
    const rows = ok(await h.call('review_transactions', { detail: 'full', limit: 500 })).transactions;
    const noFloat = (fields: Set<string>) => [...new Set([...fields].filter((f) => f !== 'amount_currency').concat('amount_formatted'))];
    for (const id of [rich, split]) {
      const row = rows.find((x: any) => x.id === id);
      const { suggestion: _s, flags: _f, ...rest } = row;
      expect(sorted(Object.keys(rest))).toEqual(sorted(noFloat(fieldsOf('TransactionDetail'))));
      const { amount_currency: _c, subtransactions, ...t } = await rawTransaction(id);
      expect(rest).toEqual({
        ...t,
        amount_formatted: usd(t.amount),
        subtransactions: subtransactions.map(({ amount_currency: _lc, ...x }: any) => ({ ...x, amount_formatted: usd(x.amount) })),
      });
    }
    const lines = rows.find((x: any) => x.id === split).subtransactions;
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(sorted(Object.keys(line))).toEqual(sorted(noFloat(fieldsOf('SubTransaction'))));
  });
});
