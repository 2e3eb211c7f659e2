/**
 * Names stay unique, and the user's own entries are theirs (issue 43 item 9): update_payee refuses
 * a name another payee has; merge_payees moves every transaction and scheduled transaction of one
 * payee to another, previewed first, undone by undo_change, and says the emptied payee stays; a
 * transaction logged with create_transactions is approved, as one typed into YNAB's app is, while
 * a statement's rows stay unapproved. Every figure is read back from the sandbox's raw API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budget: string;
const text = (res: any): string => res.content?.[0]?.text ?? '';

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'payees' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const raw = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
const payees = async () => ((await raw('/payees')).payees as any[]).filter((p) => !p.deleted);
const byName = async (name: string) => (await payees()).find((p) => p.name === name);
const transactionsOf = async (payeeId: string) => ((await raw('/transactions')).transactions as any[]).filter((t) => !t.deleted && t.payee_id === payeeId);
const scheduledOf = async (payeeId: string) =>
  ((await raw('/scheduled_transactions')).scheduled_transactions as any[]).filter((s) => !s.deleted && s.payee_id === payeeId);
/** Two payees with ordinary (not transfer) transactions, the one with fewer first. */
async function twoPayees(): Promise<[any, any]> {
  const all = ((await raw('/transactions')).transactions as any[]).filter((t) => !t.deleted && !t.transfer_account_id && t.payee_id);
  const counts = new Map<string, number>();
  for (const t of all) counts.set(t.payee_id, (counts.get(t.payee_id) ?? 0) + 1);
  const list = await payees();
  const ranked = [...counts.entries()]
    .filter(([id]) => !list.find((p) => p.id === id)?.transfer_account_id)
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
  // One with a scheduled transaction too, so that the merge moves both kinds.
  const sched = new Set(((await raw('/scheduled_transactions')).scheduled_transactions as any[]).filter((x) => !x.deleted).map((x) => x.payee_id));
  const from = list.find((p) => p.id === (ranked.find(([id, n]) => n >= 2 && sched.has(id)) ?? ranked.find(([, n]) => n >= 2))![0])!;
  const to = list.find((p) => p.id === ranked[ranked.length - 1]![0])!;
  return [from, to];
}

describe('update_payee', () => {
  it('refuses a name another payee has, naming it, and changes nothing', async () => {
    const [a, b] = await twoPayees();
    const res = await h.call('update_payee', { payee_id: a.id, name: ` ${b.name.toUpperCase()} ` });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain(`another payee is already called ${JSON.stringify(b.name)}`);
    expect(text(res)).toContain('merge_payees');
    expect((await byName(a.name))?.id).toBe(a.id);
    expect((await payees()).filter((p) => p.name.toLowerCase() === b.name.toLowerCase())).toHaveLength(1);
  });

  it('still renames to a name no other payee has (its own name in another case included)', async () => {
    const [a] = await twoPayees();
    const done = ok(await h.call('update_payee', { payee_id: a.id, name: a.name.toUpperCase() }));
    expect(done.change_id).toEqual(expect.any(String));
    expect((await payees()).find((p) => p.id === a.id)?.name).toBe(a.name.toUpperCase());
    ok(await h.call('update_payee', { payee_id: a.id, name: a.name }));
  });
});

describe('merge_payees', () => {
  it('previews first, moves every transaction and scheduled transaction, says the payee stays, and undoes', async () => {
    const [from, to] = await twoPayees();
    const txns = await transactionsOf(from.id);
    const scheduled = await scheduledOf(from.id);
    const toBefore = (await transactionsOf(to.id)).length;
    expect(scheduled.length).toBeGreaterThan(0);
    const args = { from_payee_id: from.name, to_payee_id: to.id };

    const preview = ok(await h.call('merge_payees', args));
    expect(preview).toMatchObject({ preview: true, confirm_token: expect.any(String) });
    expect(preview.summary).toBe(
      `Move ${txns.length} transaction${txns.length === 1 ? '' : 's'} and ${scheduled.length} scheduled from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)}`,
    );
    expect(JSON.stringify(preview)).toContain("YNAB's API cannot delete payees");
    expect(await transactionsOf(from.id)).toHaveLength(txns.length);

    const done = ok(await h.call('merge_payees', { ...args, confirm_token: preview.confirm_token }));
    expect(done).toMatchObject({ moved_transactions: txns.length, moved_scheduled: scheduled.length });
    expect(done.emptied_payee_stays).toContain(JSON.stringify(from.name));
    expect(await transactionsOf(from.id)).toHaveLength(0);
    expect(await scheduledOf(from.id)).toHaveLength(0);
    expect(await transactionsOf(to.id)).toHaveLength(toBefore + txns.length);
    expect(await byName(from.name)).toBeDefined();

    const undoPreview = ok(await h.call('undo_change', { change_id: done.change_id }));
    ok(await h.call('undo_change', { change_id: done.change_id, confirm_token: undoPreview.confirm_token }));
    expect((await transactionsOf(from.id)).map((t) => t.id).sort()).toEqual(txns.map((t) => t.id).sort());
    expect((await scheduledOf(from.id)).map((s) => s.id).sort()).toEqual(scheduled.map((s) => s.id).sort());
    expect(await transactionsOf(to.id)).toHaveLength(toBefore);
  });

  it('refuses a transfer payee and the same payee twice', async () => {
    const [from] = await twoPayees();
    const transfer = (await payees()).find((p) => p.transfer_account_id)!;
    const a = await h.call('merge_payees', { from_payee_id: transfer.id, to_payee_id: from.id });
    expect(a.isError).toBe(true);
    expect(text(a)).toContain('is a transfer payee');
    const b = await h.call('merge_payees', { from_payee_id: from.id, to_payee_id: from.id });
    expect(b.isError).toBe(true);
    expect(text(b)).toContain('the same payee');
  });
});

describe('create_transactions', () => {
  it("approves what the user logs, as YNAB's app does, unless approved: false", async () => {
    const account = ((await raw('/accounts')).accounts as any[]).find((a) => a.on_budget && !a.closed && !a.deleted && a.type === 'checking')!;
    const today = new Date().toISOString().slice(0, 10);
    const done = ok(
      await h.call('create_transactions', {
        transactions: [
          { account_id: account.id, date: today, amount: -3.21, payee_name: 'Payees Test Cafe' },
          { account_id: account.id, date: today, amount: -4.32, payee_name: 'Payees Test Cafe', approved: false },
        ],
        allow_new_payee: true,
      }),
    );
    const made = ((await raw('/transactions')).transactions as any[]).filter((t) => t.memo === null && [-3210, -4320].includes(t.amount) && t.date === today);
    expect(made.find((t) => t.amount === -3210)?.approved).toBe(true);
    expect(made.find((t) => t.amount === -4320)?.approved).toBe(false);
    expect(done.change_id).toEqual(expect.any(String));
  });
});
