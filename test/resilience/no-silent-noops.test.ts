/**
 * No silent no-ops, through the real MCP client against the sandbox (which behaves as the API:
 * a split keeps its amount and date, new lines for a split are refused, payee_id wins over
 * payee_name, Credit Card Payment categories are ignored):
 *  - update_transaction / update_transactions that change the amount or the lines of a split are
 *    refused before anything is sent, saying plainly that the API cannot do it and what works
 *    (delete and create again), for the whole batch, found by id or by import_id;
 *  - any other field the service ignored is reported in the result (`not_applied` and a notice),
 *    and a call where nothing that was sent took effect fails saying so;
 *  - ordinary updates report nothing extra.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let account: string;
let categories: any[];
let creditCardPayment: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'no-silent-noops' } });
  account = ok(await h.call('list_accounts')).accounts.find((a: any) => a.type === 'checking' && !a.closed).id;
  const groups = ok(await h.call('list_categories')).category_groups;
  categories = groups.filter((g: any) => g.name !== 'Credit Card Payments' && g.name !== 'Internal Master Category').flatMap((g: any) => g.categories);
  creditCardPayment = groups.find((g: any) => g.name === 'Credit Card Payments').categories[0].id;
});
afterAll(() => h.close());

async function split(extra: Record<string, unknown> = {}): Promise<string> {
  const res = ok(
    await h.call('create_transactions', {
      // The same split again and again, on purpose.
      allow_duplicate: true,
      transactions: [
        {
          account_id: account,
          date: today,
          amount: -30,
          payee_name: 'Split store',
          subtransactions: [
            { amount: -10, category_id: categories[0].id },
            { amount: -20, category_id: categories[1].id },
          ],
          ...extra,
        },
      ],
    }),
  );
  return res.transaction_ids[0];
}

async function plain(): Promise<string> {
  return ok(
    await h.call('create_transactions', {
      allow_duplicate: true,
      transactions: [{ account_id: account, date: today, amount: -5, payee_name: 'Plain store', category_id: categories[2].id }],
    }),
  ).transaction_ids[0];
}

const knowledge = () => h.sb.state.budgets[0]!.knowledge;
const fresh = async (id: string) => ok(await h.call('get_transaction', { transaction_id: id, detail: 'full' })).transaction;

function refusal(res: any): string {
  expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
  return res.content[0].text;
}

describe("a split's amount or lines", () => {
  it('are refused before anything is sent, saying the API cannot and what works', async () => {
    const id = await split();
    const before = knowledge();
    for (const [args, what] of [
      [{ amount: -40 }, 'the amount'],
      [{ amount_milliunits: -40_000, memo: 'and a memo' }, 'the amount'],
      [{ subtransactions: [{ amount: -30, category_id: categories[0].id }] }, 'the lines \\(subtransactions\\)'],
      [{ amount: -40, subtransactions: [{ amount: -40, category_id: categories[0].id }] }, 'the amount and the lines \\(subtransactions\\)'],
    ] as const) {
      const text = refusal(await h.call('update_transaction', { transaction_id: id, ...args }));
      expect(text).toMatch(new RegExp(`^transaction ${id} is a split, and YNAB's API cannot change ${what} of an existing split`));
      expect(text).toMatch(/split_transaction with the new lines \(and amount\): it deletes the split and creates it again/);
      expect(text).toMatch(/delete the split \(delete_transaction\) and create it again with the new amount and lines \(create_transactions\)/);
      expect(text).toMatch(/Nothing was changed\.$/);
    }
    // Nothing reached the service, and the split is as it was.
    expect(knowledge()).toBe(before);
    const t = await fresh(id);
    expect(t.amount).toBe(-30_000);
    expect(t.memo).toBeNull();
    expect(t.subtransactions.map((x: any) => x.amount)).toEqual([-10_000, -20_000]);
  });

  it('in a batch refuse the whole batch, naming the item, found by id or by import_id', async () => {
    const byId = await split();
    const byImport = await split({ import_id: `YNAB:-30000:${today}:9` });
    const other = await plain();
    const before = knowledge();
    const first = refusal(
      await h.call('update_transactions', {
        transactions: [
          { id: other, memo: 'would be fine' },
          { id: byId, amount: -31 },
        ],
      }),
    );
    expect(first).toMatch(new RegExp(`^transactions\\[1\\] \\(transaction ${byId}\\) is a split`));
    const second = refusal(
      await h.call('update_transactions', { transactions: [{ import_id: `YNAB:-30000:${today}:9`, subtransactions: [{ amount: -30 }] }] }),
    );
    expect(second).toMatch(new RegExp(`^transactions\\[0\\] \\(transaction ${byImport}\\) is a split, and YNAB's API cannot change the lines`));
    expect(knowledge()).toBe(before);
    expect((await fresh(other)).memo).toBeNull();
  });

  it('is not refused when the amount sent is the one it has, or when a plain transaction becomes a split', async () => {
    const id = await split();
    const same = ok(await h.call('update_transaction', { transaction_id: id, amount: -30, memo: 'same amount' }));
    expect(same.transaction.memo).toBe('same amount');
    expect(same.not_applied).toBeUndefined();
    const p = await plain();
    // A first split is previewed first, as split_transaction's (issue 57, item 10).
    const { result } = await confirmed(h, 'update_transaction', {
      transaction_id: p,
      subtransactions: [
        { amount: -2, category_id: categories[0].id },
        { amount: -3, category_id: categories[1].id },
      ],
    });
    const res = ok(result);
    expect(res.not_applied).toBeUndefined();
    expect((await fresh(p)).subtransactions).toHaveLength(2);
  });
});

describe('fields the service ignored', () => {
  it('are reported in the result next to what did change', async () => {
    const id = await split();
    const res = ok(await h.call('update_transaction', { transaction_id: id, date: '2025-01-02', memo: 'kept', category_id: categories[3].id }));
    expect(res.transaction.memo).toBe('kept');
    expect(res.not_applied).toEqual([
      { transaction_id: id, field: 'date', sent: '2025-01-02', shown: today, reason: expect.stringMatching(/^YNAB keeps a split's date/) },
      // A split's own category is the service's internal split category (the sandbox's too).
      {
        transaction_id: id,
        field: 'category_id',
        sent: categories[3].id,
        shown: res.transaction.category_id,
        reason: expect.stringMatching(/a split has no single category/),
      },
    ]);
    expect(res.transaction.category_name).toBe('Split');
    expect(res.transaction.category_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.notices).toEqual([
      expect.stringMatching(/^Not applied by YNAB: date of transaction .*sent "2025-01-02"/),
      expect.stringMatching(/^Not applied by YNAB: category_id/),
    ]);
  });

  it('payee_name next to payee_id, and a Credit Card Payment category, in update_transactions', async () => {
    const a = await plain();
    const b = await plain();
    const payee = ok(await h.call('list_payees', { limit: 500 })).payees.find((p: any) => p.name === 'Split store');
    const res = ok(
      await h.call('update_transactions', {
        transactions: [
          { id: a, payee_id: payee.id, payee_name: 'Something else', approved: true },
          { id: b, category_id: creditCardPayment, flag_color: 'red' },
        ],
      }),
    );
    expect(res.not_applied).toEqual([
      { transaction_id: a, field: 'payee_name', sent: 'Something else', shown: 'Split store', reason: 'YNAB ignores payee_name when payee_id is given' },
      {
        transaction_id: b,
        field: 'category_id',
        sent: creditCardPayment,
        shown: categories[2].id,
        reason: expect.stringMatching(/Credit Card Payment category/),
      },
    ]);
    expect(res.notices).toHaveLength(2);
    const [ta, tb] = [await fresh(a), await fresh(b)];
    expect([ta.payee_id, ta.approved, tb.flag_color]).toEqual([payee.id, true, 'red']);
  });

  it('when nothing that was sent took effect, fail saying so', async () => {
    const id = await split();
    const text = refusal(await h.call('update_transaction', { transaction_id: id, date: '2025-03-04' }));
    expect(text).toMatch(
      /^YNAB accepted the update but applied none of it\. Not applied by YNAB: date of transaction .* YNAB keeps a split's date.*Nothing was changed\.$/,
    );
    expect((await fresh(id)).date).toBe(today);
  });

  it('ordinary updates report nothing extra', async () => {
    const id = await plain();
    const res = ok(await h.call('update_transaction', { transaction_id: id, amount: -7.5, memo: ' padded ', date: today, cleared: 'cleared', flag_color: '' }));
    expect(res.transaction.amount).toBe(-7500);
    expect(res.not_applied).toBeUndefined();
    expect(res.notices).toBeUndefined();
  });
});
