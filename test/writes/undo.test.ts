/**
 * The undo journal through a real MCP client against the sandbox over HTTP: every applied write
 * answers with a change_id and is listed by list_recent_changes; undo_change previews, then puts
 * each entity back exactly once (a create deleted, an update reverted, a delete re-created with a
 * new id that the result names), as one change for multi-entity writes (a transfer's two sides,
 * move_money's two assignments, a split rewrite). It refuses, naming the difference, when the
 * budget changed since, and a second time. The journal is sealed in the state store and keeps
 * the last 100 changes. Expectations come from the API's raw answers.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { ephemeralKey } from '../../src/sync/seal.js';
import { UndoJournal, MAX_CHANGES } from '../../src/writes/pipeline/undo-journal.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'undo' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const raw = async (id: string) => h.sb.get(`/budgets/${budget}/transactions/${id}`);
const undo = async (change: string) => confirmed(h, 'undo_change', { change_id: change });
const buy = async (memo: string, amount = -17.25) =>
  ok(
    await h.call('create_transactions', {
      allow_duplicate: true,
      transactions: [{ account_id: 'Everyday Checking', date: today, amount, payee_name: 'Undo Shop', memo, category_id: 'Groceries' }],
    }),
  );

describe('the journal', () => {
  it('gives every applied write a change_id and lists them newest first', async () => {
    const a = await buy('listed a');
    const b = ok(await h.call('update_transaction', { transaction_id: a.transaction_ids[0], memo: 'listed b' }));
    const list = ok(await h.call('list_recent_changes', { limit: 2 }));
    expect(list.changes.map((c: any) => c.change_id)).toEqual([b.change_id, a.change_id]);
    expect(list.changes[0]).toMatchObject({
      tool: 'update_transaction',
      count: 1,
      undoable: true,
      summary: expect.stringMatching(/^Updated transaction .*memo "listed b"/),
    });
    expect(list.changes[1]).toMatchObject({ tool: 'create_transactions', summary: expect.stringMatching(/^Created transaction .*-\$17\.25/) });
  });

  it('is sealed in the state store: no budget text in its files', async () => {
    await buy('secret memo text');
    const root = (await h.state.ready()).store.location;
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(join(root, 'changes'));
    // Beside each budget's folder of changes, the list of their ids (and nothing of the budget).
    const lists = files.filter((f) => f.endsWith('.ids'));
    const changes = files.filter((f) => !f.endsWith('.ids'));
    expect(lists.length).toBeGreaterThan(0);
    for (const f of lists) for (const id of JSON.parse(readFileSync(f, 'utf8')) as string[]) expect(id).toMatch(/^ch-[0-9a-z]+-[0-9a-f]+$/);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((f) => /\/changes\/[^/]+\/[^/]+\/ch-[0-9a-z]+-[0-9a-f]+\.change$/.test(f))).toBe(true);
    for (const f of changes) {
      const bytes = readFileSync(f);
      expect(bytes.subarray(0, 7).toString()).toBe('YMCPC1\n');
      expect(bytes.toString('latin1')).not.toMatch(/secret memo text|Undo Shop|Groceries/);
    }
  });

  it('keeps the last 100 changes of a budget', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-changes-'));
    try {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const log = new UndoJournal(
        new FileStateStore(dir),
        ephemeralKey(),
        async () => 'me',
        () => (now += 1000),
      );
      for (let i = 0; i < MAX_CHANGES + 5; i++) await log.append('b1', { tool: 'update_payee', summary: `change ${i}`, entities: [] });
      const recent = await log.recent('b1');
      expect(recent).toHaveLength(MAX_CHANGES);
      expect(recent[0]!.summary).toBe(`change ${MAX_CHANGES + 4}`);
      expect(recent.at(-1)!.summary).toBe('change 5');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('orders changes made in one millisecond, or after the clock stepped back, as they were made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-changes-'));
    try {
      const clock = [5000, 5000, 5000, 4000, 5000].map((ms) => Date.parse('2026-01-01T00:00:00Z') + ms);
      const log = new UndoJournal(
        new FileStateStore(dir),
        ephemeralKey(),
        async () => 'me',
        () => clock.shift()!,
      );
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await log.append('b1', { tool: 'update_transaction', summary: `change ${i}`, entities: [] }));
      expect((await log.recent('b1')).map((r) => r.summary)).toEqual(['change 4', 'change 3', 'change 2', 'change 1', 'change 0']);
      for (let i = 1; i < made.length; i++) expect(made[i]!.id > made[i - 1]!.id).toBe(true);
      // The time each was recorded at is the clock's, as it was.
      expect(made.map((r) => r.at.slice(17))).toEqual(['05.000Z', '05.000Z', '05.000Z', '04.000Z', '05.000Z']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('undo_change', () => {
  it('undoes a create by deleting it, after a preview', async () => {
    const made = await buy('undo create');
    const id = made.transaction_ids[0];
    const { preview, result } = await undo(made.change_id);
    expect(preview).toMatchObject({ preview: true, summary: expect.stringMatching(new RegExp(`^Undo ${made.change_id}`)) });
    expect(preview.changes[0]).toMatchObject({ action: 'delete', id, current: { memo: 'undo create', amount_formatted: '-$17.25' }, after: null });
    const done = ok(result);
    expect(done.undone).toBe(made.change_id);
    expect((await raw(id)).status).toBe(404);
    const list = ok(await h.call('list_recent_changes', { limit: 2 })).changes;
    expect(list[0]).toMatchObject({ change_id: done.change_id, undoes: made.change_id });
    expect(list[1]).toMatchObject({ change_id: made.change_id, undoable: false, undone_by: done.change_id });
  });

  it('undoes an update by putting the fields back', async () => {
    const id = (await buy('before update')).transaction_ids[0];
    const changed = ok(await h.call('update_transaction', { transaction_id: id, memo: 'after update', category_id: 'Dining Out', flag_color: 'red' }));
    ok((await undo(changed.change_id)).result);
    const t = (await raw(id)).body.data.transaction;
    expect(t).toMatchObject({ memo: 'before update', category_name: 'Groceries', flag_color: null });
  });

  it('undoes a delete by creating it again with a new id, and says so', async () => {
    const id = (await buy('deleted then back', -61.5)).transaction_ids[0];
    const before = (await raw(id)).body.data.transaction;
    const deleted = ok((await confirmed(h, 'delete_transaction', { transaction_id: id })).result);
    const back = ok((await undo(deleted.change_id)).result);
    expect(back.notices.join(' ')).toMatch(new RegExp(`transaction ${id} .* was created again with a new id, ([0-9a-f-]{36})`));
    const fresh = back.restored[0].id;
    expect(fresh).not.toBe(id);
    const t = (await raw(fresh)).body.data.transaction;
    for (const k of ['date', 'amount', 'payee_id', 'category_id', 'memo', 'cleared', 'approved', 'account_id']) expect(t[k], k).toEqual(before[k]);
  });

  it('refuses, naming the difference, when the entity changed since; nothing is changed', async () => {
    const id = (await buy('conflict')).transaction_ids[0];
    const changed = ok(await h.call('update_transaction', { transaction_id: id, memo: 'ours' }));
    // Someone else changes the amount in the YNAB app.
    expect((await h.sb.call('PUT', `/budgets/${budget}/transactions/${id}`, { transaction: { amount: -99_990 } })).status).toBe(200);
    const res = await h.call('undo_change', { change_id: changed.change_id });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(
      /^Undo refused: the budget changed since change .*: transaction .*: amount is now -\$99\.99 \(the change left -\$17\.25\)\. No later change of this server changed it \(it was changed in YNAB itself\).* Nothing was changed\./,
    );
    expect((await raw(id)).body.data.transaction).toMatchObject({ memo: 'ours', amount: -99_990 });
  });

  it('refuses a second undo of one change, and of a change that cannot be undone', async () => {
    const made = await buy('once only');
    ok((await undo(made.change_id)).result);
    const again = await h.call('undo_change', { change_id: made.change_id });
    expect(again.content[0].text).toMatch(/was already undone by ch-/);
    const payee = ok(await h.call('create_payee', { name: `Undo payee ${Date.now()}` }));
    const no = await h.call('undo_change', { change_id: payee.change_id });
    expect(no.content[0].text).toMatch(/cannot be undone: YNAB's API cannot delete categories, category groups, payees or accounts/);
  });

  it('an update found by an import_id this server had not seen yet: refused saying why (its state before is not known), never a crash', async () => {
    await h.call('list_accounts', {});
    const account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
    const importId = `YNAB:-9999:${today}:${Date.now() % 1000}`.slice(0, 36);
    const made = (
      await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: account, date: today, amount: -9999, memo: 'imported elsewhere', import_id: importId },
      })
    ).body.data.transaction;
    const changed = ok(await h.call('update_transactions', { transactions: [{ import_id: importId, memo: 'changed here' }] }));
    expect(changed.change_id).toBeDefined();
    const refused = await h.call('undo_change', { change_id: changed.change_id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(
      /^Undo refused: change ch-\S+ cannot be undone: transaction .* was not in this server's copy of the budget when it was changed, so what to put back is not known\. Nothing was changed\.$/,
    );
    expect((await raw(made.id)).body.data.transaction.memo).toBe('changed here');
  });

  it('of two undos confirmed at once with their own tokens, exactly one applies', async () => {
    const made = await buy('racing undo');
    const p1 = ok(await h.call('undo_change', { change_id: made.change_id }));
    const p2 = ok(await h.call('undo_change', { change_id: made.change_id }));
    const results = await Promise.all([p1, p2].map((p) => h.call('undo_change', { change_id: made.change_id, confirm_token: p.confirm_token })));
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(results.find((r) => r.isError).content[0].text).toMatch(/being undone by another call|already undone|changed since/);
    expect((await raw(made.transaction_ids[0])).status).toBe(404);
    const undos = ok(await h.call('list_recent_changes', { limit: 100 })).changes.filter((c: any) => c.undoes === made.change_id);
    expect(undos).toHaveLength(1);
  });
});

describe('undoing a change of several entities, as one', () => {
  it('a transfer: both sides go', async () => {
    const t = ok(await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 71.71 }));
    const [a, b] = t.transaction_ids;
    const { preview, result } = await undo(t.change_id);
    expect(preview.count).toBe(1);
    ok(result);
    expect((await raw(a)).status).toBe(404);
    expect((await raw(b)).status).toBe(404);
  });

  it('move_money: both assignments go back', async () => {
    const month = currentMonth();
    const assigned = async () =>
      Object.fromEntries(((await h.sb.get(`/budgets/${budget}/months/${month}`)).body.data.month.categories as any[]).map((c) => [c.name, c.budgeted]));
    const before = await assigned();
    const moved = ok(await h.call('move_money', { from_category_id: 'Vacation', to_category_id: 'Dining Out', amount: 25 }));
    expect((await assigned())['Vacation']).toBe(before['Vacation'] - 25_000);
    const { preview, result } = await undo(moved.change_id);
    expect(preview.changes.map((c: any) => c.entity)).toEqual(['month_category', 'month_category']);
    ok(result);
    const after = await assigned();
    expect(after['Vacation']).toBe(before['Vacation']);
    expect(after['Dining Out']).toBe(before['Dining Out']);
  });

  it('a split rewrite: the new split goes and the old one comes back (with a new id)', async () => {
    const id = ok(
      await h.call('create_transactions', {
        transactions: [
          {
            account_id: 'Wallet',
            date: today,
            amount: -50,
            payee_name: 'Split Undo',
            memo: 'split undo',
            subtransactions: [
              { amount: -20, category_id: 'Coffee' },
              { amount: -30, category_id: 'Groceries' },
            ],
          },
        ],
      }),
    ).transaction_ids[0];
    const split = ok(
      (
        await confirmed(h, 'split_transaction', {
          transaction_id: id,
          subtransactions: [
            { amount: -25, category_id: 'Coffee' },
            { amount: -25, category_id: 'Groceries' },
          ],
        })
      ).result,
    );
    const back = ok((await undo(split.change_id)).result);
    expect((await raw(split.transaction.id)).status).toBe(404);
    const restored = back.restored.find((r: any) => r.action === 'create').id;
    const t = (await raw(restored)).body.data.transaction;
    expect(t.memo).toBe('split undo');
    expect(t.subtransactions.map((x: any) => x.amount).sort((x: number, y: number) => x - y)).toEqual([-30_000, -20_000]);
  });

  it('approving a batch: every one is unapproved again', async () => {
    const ids = ok(
      await h.call('create_transactions', {
        transactions: Array.from({ length: 6 }, (_, i) => ({ account_id: 'Wallet', date: today, amount: -(1 + i), payee_name: 'Batch Undo', approved: false })),
      }),
    ).transaction_ids;
    const approved = ok((await confirmed(h, 'approve_transactions', { transaction_ids: ids })).result);
    expect(approved.updated).toBe(6);
    const { preview, result } = await undo(approved.change_id);
    expect(preview.count).toBe(6);
    ok(result);
    for (const id of ids) expect((await raw(id)).body.data.transaction.approved).toBe(false);
  });
});
