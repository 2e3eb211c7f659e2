/**
 * The alerts' scan after a sync reuses what it computed over every transaction when the sync
 * brought no change to the lines (issue 61 item 1): on three seeds, a copy kept current by delta
 * exports and scanned after each gives the same conditions as a copy built from a full export at
 * that moment and scanned once, after a sync that only moved money between categories (reused) and
 * after one that added an unapproved transaction (computed again: the review queue grows by one,
 * as the raw API counts it), and after one that added an unapproved transaction to a tracking account.
 */
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/events/detect.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { exportOf, fullCopy, seededPlan } from '../helpers/export-copy.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

/**
 * The review queue as the raw API has it, as review_transactions has it: transactions unapproved
 * (in any account, a tracking account's too) or, in a budget account, without a category; deleted ones out.
 */
async function rawQueue(sb: TestSandbox, id: string): Promise<number> {
  const txns = (await sb.get(`/plans/${id}/transactions?since_date=1990-01-01`)).body.data.transactions.filter((t: any) => !t.deleted);
  const groups = (await sb.get(`/plans/${id}/categories`)).body.data.category_groups;
  const uncategorized = groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Uncategorized')?.id;
  const accounts = (await sb.get(`/plans/${id}/accounts`)).body.data.accounts;
  const onBudget = new Set(accounts.filter((a: any) => a.on_budget && !a.closed).map((a: any) => a.id));
  return txns.filter(
    (t: any) =>
      !t.approved ||
      (onBudget.has(t.account_id) && (!t.category_id || t.category_id === uncategorized) && !t.transfer_account_id && !t.subtransactions?.length),
  ).length;
}

const scan = (r: BudgetReplica, now: Date) => detect(BudgetView.of(r), now).map((c) => ({ key: c.key, data: c.data, level: c.level }));

describe.each(SEEDS)('incremental scan, seed %s', (seed) => {
  const at = seededPlan(seed);

  it('gives what a full scan gives after a move of money and after a new transaction', async () => {
    const { sb, id } = at;
    const now = new Date();
    const kept = await fullCopy(sb, id);
    expect(scan(kept, now)).toEqual(scan(await fullCopy(sb, id), now));

    // Money moved to a category: months and categories change, no line does (the rows are reused).
    const categories = (await sb.get(`/plans/${id}/months/current`)).body.data.month.categories.filter((c: any) => !c.deleted && !c.hidden);
    const target = categories.find((c: any) => c.name !== 'Inflow: Ready to Assign' && c.name !== 'Uncategorized');
    const moved = await sb.call('PATCH', `/plans/${id}/months/current/categories/${target.id}`, { category: { budgeted: target.budgeted + 12_340 } });
    expect(moved.status).toBe(200);
    let delta = await exportOf(sb, id, kept.knowledge);
    expect(delta.plan.transactions).toEqual([]);
    const lines = kept.linesVersion;
    kept.applyExport(delta.plan, delta.knowledge, Date.now());
    expect(kept.linesVersion).toBe(lines);
    expect(scan(kept, now)).toEqual(scan(await fullCopy(sb, id), now));

    // A new unapproved transaction: the lines change, and the queue counts it. Then one waiting in a
    // tracking account: in the queue too, as review_transactions lists it (before, the alerts' queue
    // left tracking accounts out and said one number less than the tool).
    const queueBefore = await rawQueue(sb, id);
    const accounts = (await sb.get(`/plans/${id}/accounts`)).body.data.accounts.filter((a: any) => !a.closed && !a.deleted);
    const waiting = [accounts.find((a: any) => a.on_budget), accounts.find((a: any) => !a.on_budget)];
    for (const [n, account] of waiting.entries()) {
      const created = await sb.call('POST', `/plans/${id}/transactions`, {
        transaction: {
          account_id: account.id,
          date: now.toISOString().slice(0, 10),
          amount: -4_560 - n,
          payee_name: `Incremental Scan Test ${n}`,
          approved: false,
        },
      });
      expect(created.status).toBe(201);
      expect(await rawQueue(sb, id)).toBe(queueBefore + n + 1);
      delta = await exportOf(sb, id, kept.knowledge);
      kept.applyExport(delta.plan, delta.knowledge, Date.now());
      const after = scan(kept, now);
      expect(after).toEqual(scan(await fullCopy(sb, id), now));
      expect(
        after.find((c) => c.key.startsWith('review.queue_grew|')),
        account.name,
      ).toMatchObject({ level: queueBefore + n + 1, data: { queue_size: queueBefore + n + 1 } });
    }
  });
});
