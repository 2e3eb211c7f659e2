/**
 * The new-payee guard, through a real MCP client against the sandbox: a payee_name that is no
 * payee of the budget but a near miss of one (a typing slip, case and spacing, punctuation) is
 * held with `held: "new_payee"` naming the close payee, and nothing is written (so is one that
 * extends or shortens a payee's name: "Costco Wholesale" beside Costco); allow_new_payee:
 * true writes it. The same for update_transaction(s), the scheduled writes and split_transaction's
 * lines. A payee's own name in another case is that payee; a name close to nothing is a new
 * payee, not held. The sandbox's records say what was written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { extendsName, nearName } from '../../src/shared/text.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'new-payees' } });
});
afterAll(() => h.close());

const rec = () => h.sb.state.budgets[0]!.rec;
const live = () => [...rec().transactions.values()].filter((t) => !t.deleted);
const payeeNamed = (name: string) => [...rec().payees.values()].filter((p) => !p.deleted && p.name === name);
const create = (t: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  h.call('create_transactions', { transactions: [{ account_id: 'Everyday Checking', date: today, amount: -12.34, ...t }], ...extra });

describe('a payee_name close to a payee the budget has', () => {
  it('create_transactions: "Safewy" is held naming Safeway, creating nothing; allow_new_payee: true creates it', async () => {
    const safeway = payeeNamed('Safeway')[0]!;
    expect(safeway, 'the demo budget has Safeway').toBeTruthy();
    const n = live().length;
    const held = ok(await create({ payee_name: 'Safewy' }));
    expect(held).toMatchObject({ held: 'new_payee', payee_candidates: [{ path: 'transactions[0].payee_name', payee_name: 'Safewy' }] });
    expect(held.payee_candidates[0].candidates[0]).toEqual({ id: safeway.id, name: 'Safeway' });
    expect(held.message).toMatch(/^Nothing was written: .*"Safeway".*allow_new_payee: true/);
    expect(held.transaction_ids).toBeUndefined();
    expect(live()).toHaveLength(n);
    expect(payeeNamed('Safewy')).toHaveLength(0);

    const made = ok(await create({ payee_name: 'Safewy' }, { allow_new_payee: true }));
    expect(made.transaction_ids).toHaveLength(1);
    expect(payeeNamed('Safewy')).toHaveLength(1);
    expect(rec().transactions.get(made.transaction_ids[0])!.payee_id).toBe(payeeNamed('Safewy')[0]!.id);
  });

  it('holds case-and-spacing and punctuation misses too; an exact name in another case is that payee; a far name is new', async () => {
    for (const name of ['Whole foods  Market', 'Home-Depot', 'Costco.']) {
      const held = ok(await create({ payee_name: name }));
      expect(held.held, name).toBe('new_payee');
    }
    const safeway = payeeNamed('Safeway')[0]!;
    const same = ok(await create({ payee_name: 'SAFEWAY', amount: -3.21 }));
    expect(rec().transactions.get(same.transaction_ids[0])!.payee_id).toBe(safeway.id);
    const fresh = ok(await create({ payee_name: 'Quokka Quilts', amount: -4.32 }));
    expect(fresh.transaction_ids).toHaveLength(1);
    expect(payeeNamed('Quokka Quilts')).toHaveLength(1);
  });

  it('update_transaction, create_scheduled_transaction and split_transaction lines are held the same way', async () => {
    const id = ok(await create({ payee_name: 'Quokka Quilts', amount: -50 })).transaction_ids[0];
    const before = { ...rec().transactions.get(id)! };
    const upd = ok(await h.call('update_transaction', { transaction_id: id, payee_name: 'Saffeway' }));
    expect(upd).toMatchObject({ held: 'new_payee', payee_candidates: [{ path: 'payee_name', payee_name: 'Saffeway' }] });
    expect(rec().transactions.get(id)!.payee_id).toBe(before.payee_id);
    const many = ok(await h.call('update_transactions', { transactions: [{ id, payee_name: 'Saffeway' }] }));
    expect(many).toMatchObject({ held: 'new_payee', payee_candidates: [{ path: 'transactions[0].payee_name' }] });

    const schedules = rec().scheduled_transactions.size;
    const sched = ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Everyday Checking',
        date: addDays(today, 3),
        amount: -9,
        payee_name: 'Saffeway',
        frequency: 'monthly',
      }),
    );
    expect(sched).toMatchObject({ held: 'new_payee', payee_candidates: [{ path: 'payee_name' }] });
    expect(rec().scheduled_transactions.size).toBe(schedules);

    const lines = [
      { amount: -30, category_id: 'Groceries', payee_name: 'Saffeway' },
      { amount: -20, category_id: 'Groceries' },
    ];
    const split = ok(await h.call('split_transaction', { transaction_id: id, subtransactions: lines }));
    expect(split).toMatchObject({ held: 'new_payee', payee_candidates: [{ path: 'subtransactions[0].payee_name', payee_name: 'Saffeway' }] });
    expect(rec().transactions.get(id)).toEqual(before);
    const { result } = await confirmed(h, 'split_transaction', { transaction_id: id, subtransactions: lines, allow_new_payee: true });
    expect(ok(result).transaction.id).toBe(id);
  });

  it('a name that extends or shortens a payee is held too: "Costco Wholesale" beside Costco, "Whole Foods" beside Whole Foods Market', async () => {
    const n = live().length;
    for (const [name, payee] of [
      ['Costco Wholesale', 'Costco'],
      ['Whole Foods', 'Whole Foods Market'],
    ]) {
      const existing = payeeNamed(payee!)[0]!;
      expect(existing, `the demo budget has ${payee}`).toBeTruthy();
      const held = ok(await create({ payee_name: name, amount: -8.88 }));
      expect(held, name).toMatchObject({ held: 'new_payee', payee_candidates: [{ payee_name: name }] });
      expect(held.payee_candidates[0].candidates).toContainEqual({ id: existing.id, name: payee });
      expect(payeeNamed(name!)).toHaveLength(0);
    }
    expect(live()).toHaveLength(n);
    const made = ok(await create({ payee_name: 'Costco Wholesale', amount: -8.88 }, { allow_new_payee: true }));
    expect(made.transaction_ids).toHaveLength(1);
    expect(payeeNamed('Costco Wholesale')).toHaveLength(1);
  });

  it('a transfer payee typed as payee_name is held, naming the transfer payee', async () => {
    const transfer = [...rec().payees.values()].find((p) => !p.deleted && p.transfer_account_id)!;
    const held = ok(await create({ payee_name: transfer.name, amount: -7.77 }));
    expect(held.held).toBe('new_payee');
    expect(held.payee_candidates[0].candidates).toContainEqual({ id: transfer.id, name: transfer.name });
  });
});

describe('extendsName', () => {
  it.each([
    ['Costco Wholesale', 'Costco', true],
    ['Costco', 'Costco Wholesale', true],
    ['Trader J', "Trader Joe's", true],
    ['Amazon Prime', 'Amazon', true],
    ['Costco', 'COSTCO', false],
    ['Shop 1', 'Shop 12', false],
    ['Bar', "Bart's", false],
    ['Wholesale Costco', 'Costco', false],
    ['Quokka Quilts', 'Safeway', false],
  ])('%s ~ %s: %s', (a, b, held) => expect(extendsName(a, b)).toBe(held));
});

describe('nearName', () => {
  it.each([
    ['Saffeway', 'Safeway', true],
    ['safeway', 'Safeway', false],
    ['Trader Joes', "Trader Joe's", true],
    ['Wholefoods Market', 'Whole Foods Market', true],
    ['Shop 1', 'Shop 2', false],
    ['Bar', 'Car', false],
    ['Unit A', 'Unit B', false],
    ['Att Cash k3x9', 'Att Card k3x9', false],
    ['Att Cash', 'Att Cast', true],
    ['Quokka Quilts', 'Safeway', false],
    ['Amazon Prime', 'Amazon', false],
  ])('%s ~ %s: %s', (a, b, near) => expect(nearName(a, b)).toBe(near));
});
