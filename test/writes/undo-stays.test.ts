/**
 * Undo says what stays, across three seeds, each today on the middle of a month and on the first
 * of one (this process's clock, which the server and the sandbox share), and two dates, through a real MCP client against the
 * sandbox over HTTP: undoing an import lists the payees the import made (found here as the API's
 * payees after it less those before), which YNAB's API cannot delete, and why, and the API still
 * has them, with no transactions; an undo refused because a later change touched the same
 * transaction names that later change and its change_id, and undoing that first lets it through.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions } from './statement-helpers.js';

/** Today, in turn: the middle of this month and the first of the next (this process's clock, which the server and the sandbox share). */
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
let today = '';
const CASES = ['undo', 'undo-stays-b', 'undo-stays-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));

describe.each(CASES)('undo says what stays (seed %s on %s)', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  const payees = async () =>
    new Map<string, string>((await h.sb.get(`/budgets/${budget}/payees`)).body.data.payees.filter((p: any) => !p.deleted).map((p: any) => [p.id, p.name]));

  beforeAll(async () => {
    // The clock runs on from there: the journal orders changes by when they were made.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`), shouldAdvanceTime: true });
    today = date;
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    budget = h.sb.state.budgets[0]!.id;
    account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  it.each([2, 20])(
    'an undone import lists the payees it made, which stay (rows %i days ago)',
    async (back) => {
      const date = addDays(today, -back);
      const txns = await rawTransactions(h, budget, account);
      const used = new Set<number>();
      const rows = ['Zephyrine Kiosk', 'Quillonby Books'].map((payee, i) => ({
        date,
        payee: `${payee} ${back}`,
        amount: freeAmount(txns, date, used, -63_410 - i * 1000),
      }));
      const before = await payees();
      const { result } = await confirmed(h, 'import_statement', { account_id: 'Everyday Checking', content: csv(rows), columns: COLUMNS });
      const imported = ok(result);
      expect(imported.created).toBe(2);
      const made = [...(await payees())].filter(([id]) => !before.has(id));
      expect(made.map(([, name]) => name).sort()).toEqual(rows.map((r) => r.payee).sort());
      const { preview, result: undone } = await confirmed(h, 'undo_change', { change_id: imported.change_id });
      expect(preview.not_undone.map((p: any) => p.id).sort()).toEqual(made.map(([id]) => id).sort());
      const answer = ok(undone);
      expect(answer.not_undone).toHaveLength(made.length);
      for (const p of answer.not_undone) {
        expect(p).toMatchObject({ kind: 'payee', name: before.get(p.id) ?? new Map(made).get(p.id) });
        expect(p.why).toMatch(/^YNAB's API cannot delete a payee/);
      }
      // The API keeps them, and no transaction of the budget names them any more.
      const now = await payees();
      const all = (await h.sb.get(`/budgets/${budget}/transactions`)).body.data.transactions.filter((t: any) => !t.deleted);
      for (const [id] of made) {
        expect(now.has(id)).toBe(true);
        expect(all.some((t: any) => t.payee_id === id)).toBe(false);
      }
    },
    60_000,
  );

  it.each([0, 9])(
    'a refused undo names the later change to undo first (a transaction of %i days ago)',
    async (back) => {
      const date = addDays(today, -back);
      const first = ok(
        await h.call('create_transactions', {
          allow_duplicate: true,
          transactions: [{ account_id: 'Everyday Checking', date, amount: -12.34, payee_name: 'Undo Order Shop', memo: 'first' }],
        }),
      );
      const id = first.transaction_ids[0];
      const memo = ok(await h.call('update_transaction', { transaction_id: id, memo: 'second' }));
      const later = ok(await h.call('update_transaction', { transaction_id: id, memo: 'third' }));
      const refused = await h.call('undo_change', { change_id: memo.change_id });
      expect(refused.isError).toBe(true);
      const text = refused.content[0].text as string;
      expect(text).toContain(`Undo the later change first: change_id ${later.change_id} (update_transaction:`);
      expect(text).toMatch(/Nothing was changed\.$/);
      expect((await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body.data.transaction.memo).toBe('third');
      // Undone in that order, both go through.
      ok((await confirmed(h, 'undo_change', { change_id: later.change_id })).result);
      ok((await confirmed(h, 'undo_change', { change_id: memo.change_id })).result);
      expect((await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body.data.transaction.memo).toBe('first');
    },
    60_000,
  );

  it('a change made in YNAB itself is said to be so', async () => {
    const made = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -5.55, payee_name: 'Undo Order Shop', memo: 'mine' }],
      }),
    );
    const id = made.transaction_ids[0];
    expect((await h.sb.call('PUT', `/budgets/${budget}/transactions/${id}`, { transaction: { memo: 'by hand' } })).status).toBe(200);
    const refused = await h.call('undo_change', { change_id: made.change_id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain('No later change of this server changed it (it was changed in YNAB itself)');
  }, 60_000);
});
