/**
 * targets_summary and fund_targets' underfunded, YNAB's way, on three demo budgets (seeds) and on
 * two days each (the first of a month and the middle of one; the process's clock set to each, the
 * sandbox and server run in it), checked against the API's raw months:
 *  - this month: each target's need is YNAB's goal_under_funded, credit card payment categories
 *    in; the overspending covered is what would stay below zero after it; their total is what
 *    fund_targets previews (in every writes mode) and assigns, in YNAB's order when Ready to
 *    Assign is short (overspending, then targets soonest due first), the last in part;
 *  - next month (not in the budget yet): each target's need agrees with what YNAB says once the
 *    month exists (a category's scheduled transactions before it can only raise it), and after
 *    fund_targets every target there is funded (goal_under_funded 0), Ready to Assign after as
 *    the API reports it; everything in whole cents;
 *  - the compact answer names each underfunded target's due date and the soonest, within 2 KB,
 *    and needs_attention's underfunded kind lists the same targets and figures.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, type Raw } from './raw.js';

const SEEDS = ['targets-1', 'targets-2', 'targets-3'];
/** The first of next month and the 15th of this one, at noon UTC. */
const nextFirst = () => Date.parse(`${shiftMonth(thisMonth(), 1)}T12:00:00Z`);
const DATES: [string, () => number][] = [
  ['the first of a month', nextFirst],
  ['mid-month', () => Date.parse(`${thisMonth().slice(0, 8)}15T12:00:00Z`)],
];

afterEach(() => vi.useRealTimers());

/** The visible categories Underfunded looks at, in the API's group order: not YNAB's own, card payment categories in. */
function scope(r: Raw): any[] {
  return r.groups.filter((g: any) => !g.hidden && !g.deleted).flatMap((g: any) => g.categories.filter((c: any) => !c.hidden && !c.deleted && !c.internal));
}

/** When a target is due in `month`, as the tool states it: its date; a monthly one its day (else the month's last); weekly its first weekday; a balance none. */
function dueOf(c: any, month: string): string | null {
  const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
  const day = (d: number) => `${month.slice(0, 8)}${String(Math.min(d, last)).padStart(2, '0')}`;
  if (c.goal_type === 'TB') return null;
  if (c.goal_type === 'TBD') return c.goal_target_date;
  if (c.goal_type === 'NEED' && c.goal_cadence === 2) {
    for (let d = 1; d <= 7; d++) if (new Date(`${day(d)}T00:00:00Z`).getUTCDay() === c.goal_day) return day(d);
  }
  if (c.goal_type === 'NEED' && (c.goal_target_date || c.goal_cadence === 13)) return c.goal_target_date;
  return day(c.goal_day ?? last);
}

/** Underfunded on the API's month: [id, need, cover, due] in group order. */
function underfunded(r: Raw, m: any, month: string): [string, number, number, string | null][] {
  const byId = new Map(m.categories.map((c: any) => [c.id, c]));
  return scope(r).map((x) => {
    const c: any = byId.get(x.id);
    const need = Math.max(0, c.goal_under_funded ?? 0);
    return [c.id, need, Math.max(0, -(c.balance + need)), c.goal_type ? dueOf(c, month) : null];
  });
}

/** What Ready to Assign `money` gives each category in YNAB's order: overspending, then targets soonest due first. */
function allocate(rows: [string, number, number, string | null][], money: number): Map<string, number> {
  const steps: [string, number][] = [
    ...rows.filter((x) => x[2] > 0).map((x): [string, number] => [x[0], x[2]]),
    ...rows
      .filter((x) => x[1] > 0)
      .map((x, i) => ({ x, i }))
      .sort((a, b) => (a.x[3] ?? '9999').localeCompare(b.x[3] ?? '9999') || a.i - b.i)
      .map(({ x }): [string, number] => [x[0], x[1]]),
  ];
  const given = new Map<string, number>();
  for (const [id, amount] of steps) {
    const give = Math.min(amount, Math.max(0, money));
    money -= give;
    if (give > 0) given.set(id, (given.get(id) ?? 0) + give);
  }
  return given;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Ready to Assign made `rta` (or more) by taking money back from the Rainy Day Fund this month (through the server, so that its copy knows). */
async function makeRta(h: McpHarness, r: Raw, month: string, rta: number): Promise<void> {
  const m = await h.sb.get(`${r.b}/months/${month}`);
  const have = m.body.data.month.to_be_budgeted;
  if (have >= rta) return;
  const rainy = r.categories.find((c: any) => c.name === 'Rainy Day Fund');
  const now = m.body.data.month.categories.find((c: any) => c.id === rainy.id).budgeted;
  ok(await h.call('update_month_category', { month, category_id: rainy.id, budgeted: (now - (rta - have)) / 1000 }));
}

describe.each(SEEDS)('seed %s', (seed) => {
  it.each(DATES)(
    'on %s: this month, the targets and overspending Underfunded funds, in its order when short',
    async (_on, when) => {
      vi.useFakeTimers({ toFake: ['Date'], now: when(), shouldAdvanceTime: true });
      const h = await mcpHarness({ sandbox: { seed } });
      try {
        const month = thisMonth();
        let r = await raw(h.sb);
        const m0 = await r.month(month);
        const rows0 = underfunded(r, m0, month);
        const wanted0 = sum(rows0.map((x) => x[1] + x[2]));
        expect(wanted0, 'the demo leaves something underfunded').toBeGreaterThan(0);
        // Half of it can be paid for: YNAB's order decides who waits.
        await makeRta(h, r, month, Math.floor(wanted0 / 20) * 10);
        r = await raw(h.sb);
        const m = await r.month(month);
        const rows = underfunded(r, m, month);
        const need = sum(rows.map((x) => x[1]));
        const cover = sum(rows.map((x) => x[2]));

        const full = ok(await h.call('targets_summary', { detail: 'full' }));
        const targets = rows.filter((x) => m.categories.find((c: any) => c.id === x[0]).goal_type);
        expect(full.targets.map((t: any) => t.id)).toEqual(targets.map((x) => x[0]));
        for (const [i, x] of targets.entries())
          expect(full.targets[i], full.targets[i].name).toMatchObject({ underfunded_milliunits: x[1], ...(x[3] ? { due: x[3] } : {}) });
        expect(full.targets.some((t: any) => r.category.get(t.id).group.name === 'Credit Card Payments')).toBe(true);
        expect(full.totals).toMatchObject({
          underfunded_milliunits: need,
          overspent_milliunits: cover,
          to_assign_milliunits: need + cover,
          ready_to_assign_milliunits: m.to_be_budgeted,
        });

        // Compact: each underfunded target's due date, the soonest named, within 2 KB.
        const compactRes = await h.call('targets_summary', {});
        expect(Buffer.byteLength(compactRes.content[0].text)).toBeLessThanOrEqual(2048);
        const compact = ok(compactRes);
        const under = targets.filter((x) => x[1] > 0);
        expect(compact.targets.map((t: any) => [t.name, t.due ?? null])).toEqual(under.map((x) => [r.category.get(x[0]).name, x[3]]));
        const first = under.filter((x) => x[3]).sort((a, b) => a[3]!.localeCompare(b[3]!))[0];
        expect(compact.soonest).toEqual({ name: r.category.get(first![0]).name, due: first![3] });
        // needs_attention's underfunded kind: the same targets, the same figures.
        const att = ok(await h.call('needs_attention', { kind: 'underfunded', detail: 'full' })).attention[0];
        expect(new Map(att.examples.map((e: any) => [e.id, e.underfunded]))).toEqual(new Map(under.map((x) => [x[0], x[1]])));

        // fund_targets previews (direct mode), then assigns what Ready to Assign pays for, in YNAB's order.
        const given = allocate(rows, m.to_be_budgeted);
        const { preview, result } = await confirmed(h, 'fund_targets', { option: 'underfunded' });
        expect(preview.assigned_total_milliunits).toBe(Math.min(need + cover, m.to_be_budgeted));
        expect(preview.assigned_total_milliunits % 10).toBe(0);
        expect(new Map(preview.categories.map((c: any) => [c.name, c.assigned_milliunits - c.assigned_before_milliunits]))).toEqual(
          new Map([...given].map(([id, g]) => [r.category.get(id).name, g])),
        );
        const done = ok(result);
        const after = (await h.sb.get(`${r.b}/months/${month}`)).body.data.month;
        for (const c of scope(r)) {
          const before = m.categories.find((x: any) => x.id === c.id).budgeted;
          expect(after.categories.find((x: any) => x.id === c.id).budgeted, c.name).toBe(before + (given.get(c.id) ?? 0));
        }
        expect(done.ready_to_assign_after_milliunits).toBe(after.to_be_budgeted);
        expect(done.assigned_total_milliunits).toBe(sum([...given.values()]));
        ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
      } finally {
        await h.close();
      }
    },
    120_000,
  );

  it.each(DATES)(
    'on %s: next month, projected as YNAB will have it, and funded in full',
    async (_on, when) => {
      vi.useFakeTimers({ toFake: ['Date'], now: when(), shouldAdvanceTime: true });
      const h = await mcpHarness({ sandbox: { seed } });
      try {
        const month = thisMonth();
        const next = shiftMonth(month, 1);
        const r = await raw(h.sb);
        expect((await h.sb.get(`${r.b}/months/${next}`)).status, 'next month is not in the budget yet').toBe(404);
        const sum1 = ok(await h.call('targets_summary', { month: next, detail: 'full' }));
        expect(sum1.projected).toBe(true);
        // Enough money for all of it: fund_targets assigns exactly targets_summary's total there.
        await makeRta(h, r, month, sum1.totals.to_assign_milliunits);
        const sum2 = ok(await h.call('targets_summary', { month: next }));
        const { preview, result } = await confirmed(h, 'fund_targets', { option: 'underfunded', month: next });
        expect(preview.assigned_total_milliunits).toBe(sum2.totals.to_assign_milliunits);
        const done = ok(result);
        const after = (await h.sb.get(`${r.b}/months/${next}`)).body.data.month;
        for (const c of after.categories.filter((x: any) => x.goal_type && scope(r).some((s) => s.id === x.id) && !x.goal_snoozed_at))
          expect(c.goal_under_funded, c.name).toBe(0);
        expect(done.ready_to_assign_after_milliunits).toBe(after.to_be_budgeted);
        ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
        // YNAB's own figures for next month (the Rainy Day Fund aside, whose money moved): the month exists once a cent is assigned there.
        const plain = scope(r).find((c: any) => !c.goal_type && !r.category.get(c.id).group.internal)!;
        await h.sb.call('PATCH', `${r.b}/months/${next}/categories/${plain.id}`, { category: { budgeted: 10 } });
        const ynab = new Map((await h.sb.get(`${r.b}/months/${next}`)).body.data.month.categories.map((c: any) => [c.id, c]));
        await h.sb.call('PATCH', `${r.b}/months/${next}/categories/${plain.id}`, { category: { budgeted: 0 } });
        const scheduledIn = new Set(r.scheduled.flatMap((s: any) => [s.category_id, ...(s.subtransactions ?? []).map((x: any) => x.category_id)]));
        for (const t of sum1.targets.filter((x: any) => x.name !== 'Rainy Day Fund')) {
          const y: any = ynab.get(t.id);
          expect(t.underfunded_milliunits % 10, t.name).toBe(0);
          if (scheduledIn.has(t.id)) expect(t.underfunded_milliunits, t.name).toBeGreaterThanOrEqual(Math.max(0, y.goal_under_funded));
          else expect(t.underfunded_milliunits, t.name).toBe(Math.max(0, y.goal_under_funded));
        }
      } finally {
        await h.close();
      }
    },
    120_000,
  );
});
