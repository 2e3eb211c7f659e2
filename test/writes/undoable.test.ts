/**
 * list_recent_changes' `undoable` is what undo_change would do now (issue 57, item 10): one
 * decision for both. An import whose rows were changed since was listed `undoable: true` while
 * undo_change refused it. Each listed change is put to undo_change (a preview under every mode:
 * undos are always held, so nothing is undone by asking): a change listed undoable previews, one
 * listed not undoable is refused with the list's `why_not`, word for word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'undoable' } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
}, 60_000);
afterAll(() => h.close());

/** The listed change, and what undo_change answers for it now. */
async function listedAndAsked(changeId: string): Promise<{ listed: any; asked: any }> {
  const listed = ok(await h.call('list_recent_changes', { limit: 100 })).changes.find((c: any) => c.change_id === changeId);
  expect(listed, `change ${changeId} is listed`).toBeTruthy();
  return { listed, asked: await h.call('undo_change', { change_id: changeId }) };
}

/** The list and undo_change agree on this change; returns whether it is undoable. */
async function agree(changeId: string): Promise<boolean> {
  const { listed, asked } = await listedAndAsked(changeId);
  if (listed.undoable) {
    expect(asked.isError, asked.content?.[0]?.text).toBeFalsy();
    expect(asked.structuredContent.preview).toBe(true);
  } else {
    expect(asked.isError).toBe(true);
    expect(typeof listed.why_not).toBe('string');
    expect(asked.content[0].text).toContain(listed.why_not);
  }
  return listed.undoable;
}

/** A statement of two new rows, imported and confirmed; its change_id and the rows' ids. */
async function imported(label: string, start: number): Promise<{ changeId: string; ids: string[] }> {
  const txns = await rawTransactions(h, budget, account, addDays(today, -30));
  const used = new Set<number>();
  const rows = [0, 1].map((i) => ({ date: addDays(today, -2 - i), payee: `${label} ${i}`, amount: freeAmount(txns, addDays(today, -2 - i), used, start) }));
  const { result } = await confirmed(h, 'import_statement', { account_id: 'Everyday Checking', content: csv(rows), columns: COLUMNS });
  const done = ok(result);
  expect(done.created).toBe(2);
  const after = await rawTransactions(h, budget, account, addDays(today, -30));
  const ids = rows.map((r) => after.find((t) => t.amount === r.amount && t.date === r.date)!.id as string);
  return { changeId: done.change_id, ids };
}

describe('list_recent_changes undoable = what undo_change would do', () => {
  it('an import: undoable while its rows are as it left them, not once one changed (and undo_change says the same)', async () => {
    const imp = await imported('Undoable Shop', -71_230);
    expect(await agree(imp.changeId)).toBe(true);
    // One of its rows changed since (approved, as a person does after an import).
    ok(await h.call('update_transactions', { transactions: [{ id: imp.ids[0], approved: true }] }));
    expect(await agree(imp.changeId)).toBe(false);
    const { listed } = await listedAndAsked(imp.changeId);
    expect(listed.why_not).toMatch(/the budget changed since change/);
    expect(listed.why_not).toMatch(/Undo the later change first: change_id ch-/);
  }, 60_000);

  it('an import changed in YNAB itself: not undoable, and the list says why as undo_change does', async () => {
    const imp = await imported('Bakery Nord', -43_470);
    expect(await agree(imp.changeId)).toBe(true);
    const res = await h.sb.call('PATCH', `/budgets/${budget}/transactions`, { transactions: [{ id: imp.ids[1], memo: 'typed in YNAB' }] });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    // A second later, as a person asks: the list reads YNAB as undo_change's preview does.
    await new Promise((r) => setTimeout(r, 1100));
    const { listed } = await listedAndAsked(imp.changeId);
    if (listed.undoable) return expect.fail('the import is listed undoable after its row changed in YNAB');
    expect(await agree(imp.changeId)).toBe(false);
    expect(listed.why_not).toMatch(/changed in YNAB itself/);
  }, 60_000);

  it('other changes: a payee made (no delete in the API), a change undone already, and one still as it was', async () => {
    const payee = ok(await h.call('create_payee', { name: 'Undoable Payee' }));
    expect(await agree(payee.change_id)).toBe(false);
    const made = ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: account, date: today, amount: -3.21, payee_name: 'Undoable Cafe', memo: 'undoable test' }],
      }),
    );
    expect(await agree(made.change_id)).toBe(true);
    const { result } = await confirmed(h, 'undo_change', { change_id: made.change_id });
    const undo = ok(result);
    expect(await agree(made.change_id)).toBe(false);
    const { listed } = await listedAndAsked(made.change_id);
    expect(listed).toMatchObject({ undoable: false, undone_by: undo.change_id });
    // The undo itself can be undone.
    expect(await agree(undo.change_id)).toBe(true);
  }, 60_000);
});
