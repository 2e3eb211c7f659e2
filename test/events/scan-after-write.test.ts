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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../../src/events/detect.js';
import { overLinesPath } from '../../src/events/over-lines.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { detectRecurring } from '../../src/insights/recurring/recurring-detect.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { exportOf, fullCopy } from '../helpers/export-copy.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

const text = (r: BudgetReplica, now: Date) => JSON.stringify(detect(BudgetView.of(r), now));

describe.each(SEEDS)('scan after a write, seed %s', (seed) => {
  let sb: TestSandbox;
  let id: string;
  beforeAll(async () => {
    sb = await testSandbox({ seed });
    id = (await sb.get('/plans')).body.data.plans[0].id;
  });
  afterAll(async () => {
    await sb.close();
  });

  it('gives what a whole scan gives, after the answer and after the read back', async () => {
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const kept = await fullCopy(sb, id);
    text(kept, now);
    expect(overLinesPath(kept)).toBe('whole');

    /** A write as the pipeline makes it: the answer taken by the kept copy, scanned, then the read back's delta, scanned. */
    const write = async (method: string, path: string, body: unknown, path2: 'changed' | 'whole' = 'changed') => {
      const res = await sb.call(method, `/plans/${id}${path}`, body);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(300);
      const before = new Set(BudgetView.of(kept).lines);
      kept.applyWrite(res.body.data);
      const answered = text(kept, now);
      expect(overLinesPath(kept)).toBe(path2);
      const same = BudgetReplica.fromSnapshot(kept.snapshot());
      expect(answered).toBe(text(same, now));
      expect(overLinesPath(same)).toBe('whole');
      expect(BudgetView.of(kept).lines.some((l) => before.has(l))).toBe(path2 !== 'whole');

      const delta = await exportOf(sb, id, kept.knowledge);
      kept.applyExport(delta.plan, delta.knowledge, Date.now());
      expect(text(kept, now)).toBe(text(await fullCopy(sb, id), now));
      expect(overLinesPath(kept)).toBe(path2);
      return res.body.data;
    };

    const accounts = (await sb.get(`/plans/${id}/accounts`)).body.data.accounts.filter((a: any) => a.on_budget && !a.closed && !a.deleted);
    const account = accounts[0];
    const categories = (await sb.get(`/plans/${id}/months/current`)).body.data.month.categories.filter((c: any) => !c.deleted && !c.hidden);
    const category = categories.find((c: any) => c.name !== 'Inflow: Ready to Assign' && c.name !== 'Uncategorized');

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
    expect(JSON.parse(text(kept, now)).find((c: any) => c.name === 'review.queue_grew')).toBeDefined();
    expect(text(kept, now)).toBe(text(BudgetReplica.fromSnapshot(kept.snapshot()), now));
    const none = await exportOf(sb, id, kept.knowledge);
    kept.applyExport(none.plan, none.knowledge, Date.now());
    expect(kept.transactions.has(ghost.id)).toBe(false);
    expect(text(kept, now)).toBe(text(await fullCopy(sb, id), now));
    expect(overLinesPath(kept)).toBe('changed');

    await write('PUT', `/transactions/${one.id}`, { transaction: { approved: true } });
    await write('PUT', `/transactions/${one.id}`, { transaction: { category_id: category.id } });
    const moved = await write('PUT', `/transactions/${one.id}`, { transaction: { payee_name: 'Write Scan Other' } });

    // A recurring charge's latest 30% dearer: its payee's price rise computed again.
    const recurring = detectRecurring(BudgetView.of(kept), today).find((d) => d.typical < 0 && !d.transfer_account_id && d.steady);
    if (recurring) {
      const latest = [...kept.transactions.values()]
        .filter((t) => t.payee_id === recurring.payee_id && t.account_id === recurring.account_id && t.date === recurring.last_date)
        .at(-1)!;
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
