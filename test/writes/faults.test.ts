/**
 * Every task-shaped write, held write and undo through a sandbox that fails 20% of requests
 * (500, 503 and dropped connections, half of them after the change was applied), through real
 * MCP tool calls: each call succeeds and its effect is in the budget exactly once. Both sides of
 * every transfer are there once; assignments end exactly where the moves put them; approvals,
 * new categories and split lines are there once; deletes and undos apply once. The checks read
 * the sandbox's own records (fault-free), and the faults must really have hit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { sandboxDirect } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
const month = currentMonth();
let h: McpHarness;
const notices: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({
    sandbox: { seed: 'writes-faults', faults: '500=0.05,503=0.05,reset=0.1', requestTimeoutMs: 2_000 },
    // Reads are retried by the client; enough attempts that a check never fails on its own.
    stack: { retry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 } },
  });
}, 120_000);
afterAll(() => h.close());

const rec = () => h.sb.state.budgets[0]!.rec;
const live = () => [...rec().transactions.values()].filter((t) => !t.deleted);
const byMemo = (memo: string) => live().filter((t) => t.memo === memo);
const account = (name: string) => [...rec().accounts.values()].find((a) => a.name === name)!;
const category = (name: string) => [...rec().categories.values()].find((c) => c.name === name)!;

/** A tool result that must be a success; its notices are kept (to see that faults hit). */
function success(res: any, what: string): any {
  expect(res.isError, `${what}: ${res.content?.[0]?.text}`).toBeFalsy();
  notices.push(...(res.structuredContent.notices ?? []));
  return res.structuredContent;
}

async function held(name: string, args: Record<string, unknown>): Promise<any> {
  const { result } = await confirmed(h, name, args);
  return success(result, name);
}

describe('through 20% faults, each write lands exactly once', () => {
  it('create_transfer: both sides of every transfer, once each, linked', async () => {
    const from = account('Everyday Checking');
    const to = account('Rainy Day Savings');
    for (let i = 0; i < 30; i++) {
      success(
        await h.call('create_transfer', { from_account_id: from.name, to_account_id: to.name, amount_milliunits: 10_000 + i, memo: `ft-${i}` }),
        `transfer ${i}`,
      );
    }
    for (let i = 0; i < 30; i++) {
      const both = byMemo(`ft-${i}`);
      expect(both, `transfer ${i}`).toHaveLength(2);
      const out = both.find((t) => t.account_id === from.id)!;
      const inn = both.find((t) => t.account_id === to.id)!;
      expect(out.amount).toBe(-(10_000 + i));
      expect(inn.amount).toBe(10_000 + i);
      expect(out.transfer_transaction_id).toBe(inn.id);
      expect(inn.transfer_transaction_id).toBe(out.id);
    }
  }, 300_000);

  it('move_money: the assignments end exactly where the moves put them', async () => {
    // What is assigned, as the sandbox holds it.
    const assigned = (name: string) => rec().months.get(month)?.budgeted[category(name).id] ?? 0;
    const fun = assigned('Fun Money');
    const hobbies = assigned('Hobbies');
    let moved = 0;
    for (let i = 0; i < 20; i++) {
      const amount = 1_000 + i;
      const [from, to] = i % 3 === 2 ? ['Hobbies', 'Fun Money'] : ['Fun Money', 'Hobbies'];
      // allow_overspend: what the demo leaves in these categories varies by day; this is about faults.
      success(await h.call('move_money', { from_category_id: from, to_category_id: to, amount_milliunits: amount, month, allow_overspend: true }), `move ${i}`);
      moved += from === 'Fun Money' ? amount : -amount;
    }
    expect(assigned('Fun Money')).toBe(fun - moved);
    expect(assigned('Hobbies')).toBe(hobbies + moved);
  }, 300_000);

  it('fund_targets: every category set exactly as planned, and undo puts each back', async () => {
    const assigned = (m: string, id: string) => rec().months.get(m)?.budgeted[id] ?? 0;
    const inGroup = (name: string) => {
      const g = [...rec().category_groups.values()].find((x) => x.name === name)!;
      return [...rec().categories.values()].filter((c) => c.category_group_id === g.id && !c.deleted && !c.hidden);
    };
    // Options that free money, but for a category below zero (see below): nothing is short of Ready to Assign.
    const rounds: [string, string, (id: string) => number][] = [
      'Bills',
      'Health & Family',
      'Everyday Expenses',
      'True Expenses',
      'Debt Payments',
      'Savings Goals',
    ].map((group) => ['reset_assigned', group, () => 0]);
    // A category the demo moved money out of this month (assigned below zero) costs Ready to Assign
    // to reset; whether there is one varies with the day. Income covers them, as a user would record it.
    // A group the demo has assigned nothing to yet this month (on the 1st, say) would leave a reset
    // nothing to do: $1 is assigned to its first category first, paid for by the income below.
    const idle = rounds
      .map(([, group]) => inGroup(group))
      .filter((cats) => cats.every((c) => assigned(month, c.id) === 0))
      .map((cats) => cats[0]!);
    const owed = rounds.flatMap(([, group]) => inGroup(group)).reduce((n, c) => n + Math.max(0, -assigned(month, c.id)), 0) + idle.length * 1_000;
    if (owed > 0) {
      const rta = sandboxDirect(h, 'GET', `/budgets/${h.sb.state.budgets[0]!.id}/months/${month}`).month.to_be_budgeted;
      const amount = owed + Math.max(0, -rta);
      const income = {
        account_id: 'Everyday Checking',
        date: today,
        amount_milliunits: amount,
        payee_name: 'Fault Bonus',
        category_id: 'Inflow: Ready to Assign',
      };
      success(await h.call('create_transactions', { transactions: [income] }), 'income');
    }
    for (const c of idle) success(await h.call('update_month_category', { month: 'current', category_id: c.id, budgeted: 1 }), `assign ${c.name}`);
    const seen = notices.length;
    for (const [option, group, expected] of rounds) {
      const cats = inGroup(group);
      const before = new Map(cats.map((c) => [c.id, assigned(month, c.id)]));
      const res = await held('fund_targets', { option, category_group_id: group });
      for (const c of cats) expect(assigned(month, c.id), `${option} ${group}: ${c.name}`).toBe(expected(c.id));
      expect(res.count).toBe(cats.filter((c) => expected(c.id) !== before.get(c.id)).length);
      await held('undo_change', { change_id: res.change_id });
      for (const c of cats) expect(assigned(month, c.id), `undo ${option} ${group}: ${c.name}`).toBe(before.get(c.id));
    }
    // The faults hit these writes too (an update sent again after a lost answer says so).
    expect(notices.slice(seen).filter((n) => /got no (clear )?answer.*sent again/.test(n)).length).toBeGreaterThan(0);
  }, 300_000);

  it('approve_transactions and recategorize_transactions: every one changed, none twice', async () => {
    for (let i = 0; i < 8; i++) {
      const items = [0, 1, 2].map((j) => ({
        account_id: 'Wallet',
        date: today,
        amount_milliunits: -(2_000 + i * 10 + j),
        payee_name: `Fault batch ${i}`,
        memo: `fb-${i}-${j}`,
        approved: false,
      }));
      const ids = success(await h.call('create_transactions', { transactions: items }), `create ${i}`).transaction_ids as string[];
      expect(ids).toHaveLength(3);
      success(await h.call('recategorize_transactions', { transaction_ids: ids, new_category_id: 'Hobbies' }), `recategorize ${i}`);
      const approved = success(await h.call('approve_transactions', { query: `Fault batch ${i}`, approved: false, expected_count: 3 }), `approve ${i}`);
      expect(approved.updated).toBe(3);
    }
    for (let i = 0; i < 8; i++) {
      for (let j = 0; j < 3; j++) {
        const [t] = byMemo(`fb-${i}-${j}`);
        expect(byMemo(`fb-${i}-${j}`)).toHaveLength(1);
        expect(t).toMatchObject({ approved: true, category_id: category('Hobbies').id });
      }
    }
  }, 300_000);

  it('split_transaction: each rewrite leaves one split with the new lines, the old one gone', async () => {
    for (let i = 0; i < 15; i++) {
      const memo = `fs-${i}`;
      const id = success(
        await h.call('create_transactions', {
          transactions: [
            {
              account_id: 'Visa Rewards',
              date: today,
              amount_milliunits: -(30_000 + i),
              payee_name: 'Fault Split',
              memo,
              ...(i % 2 ? { import_id: `fault-split-${i}` } : {}),
              subtransactions: [
                { amount_milliunits: -10_000, category_id: 'Coffee' },
                { amount_milliunits: -(20_000 + i), category_id: 'Groceries' },
              ],
            },
          ],
        }),
        `split ${i}`,
      ).transaction_ids[0];
      const done = await held('split_transaction', {
        transaction_id: id,
        subtransactions: [
          { amount_milliunits: -15_000, category_id: 'Coffee' },
          { amount_milliunits: -(15_000 + i), category_id: 'Groceries' },
        ],
      });
      expect(done.replaced).toBe(id);
    }
    for (let i = 0; i < 15; i++) {
      const rows = byMemo(`fs-${i}`);
      expect(rows, `split ${i}`).toHaveLength(1);
      const lines = rows[0]!.subtransactions
        .filter((x) => !x.deleted)
        .map((x) => x.amount)
        .sort((a, b) => a - b);
      expect(lines).toEqual([-(15_000 + i), -15_000].sort((a, b) => a - b));
      if (i % 2) expect(rows[0]!.import_id).toBe(`fault-split-${i}`);
    }
  }, 300_000);

  it('delete_transaction with its token, and undo_change: each once', async () => {
    const made: { id: string; change: string; memo: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const memo = `fd-${i}`;
      const res = success(
        await h.call('create_transactions', {
          transactions: [{ account_id: 'Wallet', date: today, amount_milliunits: -(4_000 + i), payee_name: 'Fault Delete', memo }],
        }),
        `create ${i}`,
      );
      made.push({ id: res.transaction_ids[0], change: res.change_id, memo });
    }
    // Half are deleted with a confirmed delete, half by undoing their create.
    for (const [i, m] of made.entries()) {
      if (i % 2) await held('delete_transaction', { transaction_id: m.id });
      else expect((await held('undo_change', { change_id: m.change })).undone).toBe(m.change);
    }
    for (const m of made) expect(byMemo(m.memo), m.memo).toHaveLength(0);
    // And undoing a delete brings it back exactly once.
    const changes = ok(await h.call('list_recent_changes', { limit: 100 })).changes.filter((c: any) => c.tool === 'delete_transaction' && c.undoable);
    expect(changes.length).toBeGreaterThanOrEqual(4);
    for (const c of changes.slice(0, 4)) await held('undo_change', { change_id: c.change_id });
    const memos = changes.slice(0, 4).map((c: any) => /memo "(fd-\d+)"/.exec(c.summary)![1]!);
    for (const memo of memos) expect(byMemo(memo), memo).toHaveLength(1);
  }, 300_000);

  it('the faults really hit: answers were lost after the change was applied, and recovered', () => {
    expect(notices.filter((n) => /got no (clear )?answer/.test(n)).length).toBeGreaterThan(10);
    // Lost after YNAB had applied it: found, not made twice. How often varies with the demo's data,
    // which follows the day (the writes above, and so the draws of the seeded faults): 2 on 2026-11-27.
    expect(notices.filter((n) => /had been created anyway|found applied in YNAB|had already deleted it/.test(n)).length).toBeGreaterThanOrEqual(1);
  });
});
