/**
 * The alerts' scan after a write brings the review queue and the price rises up to date from what
 * the write's answer changed (src/sync/line-changes.ts writeChange, replica.ts applyWrite), as it
 * does after a delta sync (scan-delta.test.ts). As the write pipeline does, the kept copy takes the
 * write's answer, then the delta the read back brings. On three seeds, after transactions created
 * (a new payee, a split with a payee of its own line), approved, categorized, given another payee,
 * repriced, updated in bulk and deleted, and a payee renamed:
 *  - scanned right after the answer, the copy gives what a scan of the same copy computed whole
 *    gives (a copy of its snapshot, never scanned);
 *  - scanned after the delta, what a copy built from a full export gives, byte for byte;
 *  - both scans went the incremental path ('changed'), and the view kept the unchanged lines.
 * A transaction an answer named that the next export does not is dropped, and the scan says so.
 * An account created by a write changes what lines are: computed whole after both, and right.
 */
import { describe, expect, it } from 'vitest';
import { overLinesPath } from '../../src/events/over-lines.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { accountAndCategory, exportOf, fullCopy, latestRecurringCharge, scanText, seededPlan } from '../helpers/export-copy.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

describe.each(SEEDS)('scan after a write, seed %s', (seed) => {
  const at = seededPlan(seed);

  it('gives what a whole scan gives, after the answer and after the read back', async () => {
    const { sb, id } = at;
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const kept = await fullCopy(sb, id);
    scanText(kept, now);
    expect(overLinesPath(kept)).toBe('whole');

    /** A write as the pipeline makes it: the answer taken by the kept copy, scanned, then the read back's delta, scanned. */
    const write = async (method: string, path: string, body: unknown, path2: 'changed' | 'whole' = 'changed') => {
      const res = await sb.call(method, `/plans/${id}${path}`, body);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(300);
      const before = new Set(BudgetView.of(kept).lines);
      kept.applyWrite(res.body.data);
      const answered = scanText(kept, now);
      expect(overLinesPath(kept)).toBe(path2);
      const same = BudgetReplica.fromSnapshot(kept.snapshot());
      expect(answered).toBe(scanText(same, now));
      expect(overLinesPath(same)).toBe('whole');
      expect(BudgetView.of(kept).lines.some((l) => before.has(l))).toBe(path2 !== 'whole');

      const delta = await exportOf(sb, id, kept.knowledge);
      kept.applyExport(delta.plan, delta.knowledge, Date.now());
      expect(scanText(kept, now)).toBe(scanText(await fullCopy(sb, id), now));
      expect(overLinesPath(kept)).toBe(path2);
      return res.body.data;
    };

    const { account, category } = await accountAndCategory(sb, id);

    const created = await write('POST', '/transactions', {
      transactions: [
        { account_id: account.id, date: today, amount: -4_560, payee_name: 'Write Scan One', approved: false },
        {
          account_id: account.id,
          date: today,
          amount: -10_000,
          payee_name: 'Write Scan Split',
          approved: true,
          subtransactions: [
            { amount: -6_000, category_id: category.id },
            { amount: -4_000, payee_name: 'Write Scan Line' },
          ],
        },
      ],
    });
    const [one, split] = created.transactions;

    // An answer naming a transaction the next export does not (as if another device deleted it
    // meanwhile): held until that export, then dropped, and the queue without it again.
    const ghost = { ...one, id: '00000000-0000-4000-8000-00000000beef', approved: false, category_id: null, subtransactions: [] };
    kept.applyWrite({ transactions: [ghost], server_knowledge: kept.knowledge });
    expect(JSON.parse(scanText(kept, now)).find((c: any) => c.name === 'review.queue_grew')).toBeDefined();
    expect(scanText(kept, now)).toBe(scanText(BudgetReplica.fromSnapshot(kept.snapshot()), now));
    const none = await exportOf(sb, id, kept.knowledge);
    kept.applyExport(none.plan, none.knowledge, Date.now());
    expect(kept.transactions.has(ghost.id)).toBe(false);
    expect(scanText(kept, now)).toBe(scanText(await fullCopy(sb, id), now));
    expect(overLinesPath(kept)).toBe('changed');

    await write('PUT', `/transactions/${one.id}`, { transaction: { approved: true } });
    await write('PUT', `/transactions/${one.id}`, { transaction: { category_id: category.id } });
    const moved = await write('PUT', `/transactions/${one.id}`, { transaction: { payee_name: 'Write Scan Other' } });

    // A recurring charge's latest 30% dearer: its payee's price rise computed again.
    const latest = latestRecurringCharge(kept, today);
    if (latest) {
      await write('PUT', `/transactions/${latest.id}`, { transaction: { amount: Math.round((latest.amount * 13) / 10) } });
    }

    // Several at once, then a payee renamed (its rows' name).
    await write('PATCH', '/transactions', {
      transactions: [
        { id: one.id, memo: 'bulk', approved: false },
        { id: split.id, flag_color: 'red' },
      ],
    });
    await write('PATCH', `/payees/${moved.transaction.payee_id}`, { payee: { name: 'Write Scan Renamed' } });

    await write('DELETE', `/transactions/${one.id}`, undefined);
    await write('DELETE', `/transactions/${split.id}`, undefined);

    // An account: what every line is may change, everything computed again (after the read back too, which places it again).
    await write('POST', '/accounts', { account: { name: 'Write Scan Account', type: 'checking', balance: 1_000 } }, 'whole');
  }, 60_000);
});
