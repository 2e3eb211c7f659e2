/**
 * The alerts' scan after a delta sync brings the review queue and the price rises up to date from
 * the transactions and payees the sync changed (src/events/over-lines.ts, issue 61 item 1c): on
 * three seeds, a copy kept current by delta exports and scanned after each gives, byte for byte,
 * the conditions a copy built from a full export at that moment gives, after transactions
 * created, approved, categorized, given another payee, repriced (a recurring charge 30% dearer),
 * split and deleted, after a move of money (months only: reused) and after an account changed
 * (everything computed again). Each transaction change went the incremental path, and the view's
 * lines (insights/core/view.ts) kept those of unchanged transactions, equal to a full copy's.
 */
import { describe, expect, it } from 'vitest';
import { overLinesPath } from '../../src/events/over-lines.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { accountAndCategory, exportOf, fullCopy, latestRecurringCharge, scanText, seededPlan } from '../helpers/export-copy.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

const lineText = (v: BudgetView) =>
  JSON.stringify(
    v.lines.map((l) => [l.id, l.parent_id, l.date, l.amount, l.account_id, l.payee_id, l.category_id, l.transfer_account_id, l.memo, l.on_budget, l.kind]),
  );

describe.each(SEEDS)('scan after a delta sync, seed %s', (seed) => {
  const at = seededPlan(seed);

  it('gives what a full scan gives, after each kind of change', async () => {
    const { sb, id } = at;
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const kept = await fullCopy(sb, id);
    expect(scanText(kept, now)).toBe(scanText(await fullCopy(sb, id), now));
    expect(overLinesPath(kept)).toBe('whole');
    const write = async (method: string, path: string, body: unknown) => expect((await sb.call(method, `/plans/${id}${path}`, body)).status).toBeLessThan(300);
    /** Syncs the kept copy, scans it, and compares with a full copy's scan. */
    const step = async (path: 'changed' | 'reused' | 'whole') => {
      const before = new Set(BudgetView.of(kept).lines);
      const delta = await exportOf(sb, id, kept.knowledge);
      kept.applyExport(delta.plan, delta.knowledge, Date.now());
      const full = await fullCopy(sb, id);
      expect(scanText(kept, now)).toBe(scanText(full, now));
      expect(overLinesPath(kept)).toBe(path);
      // The view's lines: those of unchanged transactions kept from the view before, the same as a full copy's.
      expect(lineText(BudgetView.of(kept))).toBe(lineText(BudgetView.of(full)));
      expect(BudgetView.of(kept).lines.some((l) => before.has(l))).toBe(path !== 'whole');
    };

    const { account, category } = await accountAndCategory(sb, id);

    // Created: an unapproved transaction without a category, and a split.
    const created = await sb.call('POST', `/plans/${id}/transactions`, {
      transactions: [
        { account_id: account.id, date: today, amount: -4_560, payee_name: 'Delta Scan One', approved: false },
        {
          account_id: account.id,
          date: today,
          amount: -10_000,
          payee_name: 'Delta Scan Split',
          approved: true,
          subtransactions: [
            { amount: -6_000, category_id: category.id },
            { amount: -4_000, payee_name: 'Delta Scan Line' },
          ],
        },
      ],
    });
    expect(created.status).toBe(201);
    const [one, split] = created.body.data.transactions;
    await step('changed');

    // Changed: approved, then categorized, then another payee.
    await write('PUT', `/transactions/${one.id}`, { transaction: { approved: true } });
    await step('changed');
    await write('PUT', `/transactions/${one.id}`, { transaction: { category_id: category.id } });
    await step('changed');
    await write('PUT', `/transactions/${one.id}`, { transaction: { payee_name: 'Delta Scan Other' } });
    await step('changed');

    // A recurring charge's latest 30% dearer: its payee's price rise computed again.
    const latest = latestRecurringCharge(kept, today);
    if (latest) {
      await write('PUT', `/transactions/${latest.id}`, { transaction: { amount: Math.round((latest.amount * 13) / 10) } });
      await step('changed');
    }

    // Deleted: the first, and the split.
    await write('DELETE', `/transactions/${one.id}`, undefined);
    await step('changed');
    await write('DELETE', `/transactions/${split.id}`, undefined);
    await step('changed');

    // Money moved: months only, the rows reused.
    await write('PATCH', `/months/current/categories/${category.id}`, { category: { budgeted: category.budgeted + 12_340 } });
    await step('reused');

    // An account changed (its name): what every line is may change, everything computed again.
    await write('POST', `/accounts`, { account: { name: 'Delta Scan Account', type: 'checking', balance: 1_000 } });
    await step('whole');
  }, 60_000);
});
