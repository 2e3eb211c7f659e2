/**
 * Scheduled transactions on their day, as YNAB leaves them: YNAB enters a schedule's transaction on
 * its date and moves the next date on, so a payment is never both in the register and still
 * scheduled for the same day (a projection from the API would count it twice). Before, on the 1st
 * the demo's rent and payroll were both (its history enters bills up to today), and every day the
 * month's savings transfer was both made (today, by the history) and scheduled at the month's end.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { nextOccurrence } from '../../src/api/schedule.js';
import { createDemoBudgets } from '../../src/sandbox/demo/index.js';
import { insertScheduled } from '../../src/sandbox/domain/scheduled.js';
import { insertTransaction } from '../../src/sandbox/domain/transactions.js';
import { BudgetStore } from '../../src/sandbox/store/budget-store.js';
import type { BudgetRec } from '../../src/sandbox/store/records.js';
import * as V from '../../src/sandbox/store/views.js';

const USER = '5c1a0a4e-1f6b-4f6e-9a51-7f0c2c8e9b10';
const live = <T extends { deleted: boolean }>(m: Map<string, T>) => [...m.values()].filter((x) => !x.deleted);
const storeOf = (b: BudgetRec, now: Date) => new BudgetStore(b, { clock: () => now, newId: () => crypto.randomUUID(), userId: USER });

/** Every day of December 2026 (the 1st, the 15th, the bills' days, the month's end), and a February's end. */
const DAYS = [...Array.from({ length: 31 }, (_, i) => `2026-12-${String(i + 1).padStart(2, '0')}`), '2027-02-28'];

describe('scheduled transactions on their day (sandbox demo budgets)', () => {
  it('never has a payment both entered and still scheduled, nor one that is neither', () => {
    let enteredToday = 0;
    for (const day of DAYS) {
      const now = new Date(`${day}T09:00:00.000Z`);
      for (const b of createDemoBudgets({ seed: `schedules ${day}`, now, userId: USER })) {
        const store = storeOf(b, now);
        const txns = live(b.transactions);
        const entered = (s: { account_id: string; payee_id: string | null; amount: number }, date: string) =>
          txns.some((t) => t.account_id === s.account_id && t.payee_id === s.payee_id && t.amount === s.amount && t.date === date);
        for (const s of live(b.scheduled_transactions)) {
          if (s.frequency === 'never') continue;
          const next = V.scheduledDetail(store, s).date_next;
          const where = `${b.name} ${day} ${s.frequency} ${s.date_first} ${s.memo ?? ''}`;
          expect(next >= day, where).toBe(true);
          // Scheduled for today: nothing in the register for it yet.
          if (next === day) expect(entered(s, day), where).toBe(false);
          // A payment due today (by its calendar) is in one place: entered, or still to come today.
          if (nextOccurrence(s.date_first, s.frequency, day) === day && next !== day) {
            expect(entered(s, day), where).toBe(true);
            expect(next, where).toBe(nextOccurrence(s.date_first, s.frequency, addDays(day, 1)));
            enteredToday += 1;
          }
        }
      }
    }
    // In December: the rent and the paycheck on the 1st, the cabin loan on the 5th, Netflix on the
    // 7th, the second paycheck on the 16th, each entered by the demo's history and moved on.
    expect(enteredToday).toBeGreaterThanOrEqual(5);
  });

  it("has the month's move between checking and savings in one place: made, and scheduled from next month's end", () => {
    let seen = 0;
    for (const day of DAYS) {
      const now = new Date(`${day}T09:00:00.000Z`);
      for (const b of createDemoBudgets({ seed: `savings ${day}`, now, userId: USER })) {
        const plan = live(b.scheduled_transactions).find((s) => s.memo === 'Monthly savings');
        if (!plan) continue;
        const store = storeOf(b, now);
        const savings = live(b.payees).find((p) => p.id === plan.payee_id)!.transfer_account_id!;
        const month = day.slice(0, 7);
        // The history's end-of-month move of this month (its checking side), made today: to savings, or from it when checking ran low.
        const moves = live(b.transactions).filter((t) => t.date.startsWith(month) && t.account_id === plan.account_id && t.transfer_account_id === savings);
        const where = `${b.name} ${day}`;
        expect(
          moves.map((t) => t.date),
          where,
        ).toEqual([day]);
        // So the plan's next one is next month's (a projection counts this month's once).
        expect(V.scheduledDetail(store, plan).date_next.slice(0, 7) > month, where).toBe(true);
        seen += 1;
      }
    }
    expect(seen).toBe(DAYS.length);
  });

  it("keeps a schedule nothing entered due today, and moves it on once the day's payment is in the register", () => {
    const created = new Date('2026-12-14T12:00:00.000Z');
    const [b] = createDemoBudgets({ seed: 'own schedule', now: created, userId: USER });
    const account = live(b!.accounts).find((a) => a.type === 'checking' && !a.closed)!;
    const payee = live(b!.payees).find((p) => p.name === 'Oakwood Apartments')!;
    const write = (now: Date, fn: (st: BudgetStore) => void) => {
      const st = storeOf(b!, now);
      st.change(() => fn(st));
    };
    let id = '';
    write(created, (st) => {
      const spec = {
        account_id: account.id,
        date_first: '2026-12-16',
        frequency: 'monthly' as const,
        amount: -25_000,
        memo: 'Parking',
        flag_color: null,
        payee_id: payee.id,
        category_id: null,
      };
      id = insertScheduled(st, spec).id;
    });
    const nextOn = (now: Date) => V.scheduledDetail(storeOf(b!, now), b!.scheduled_transactions.get(id)!).date_next;
    const on = new Date('2026-12-16T08:00:00.000Z');
    /** A payment to the schedule's payee on its day. */
    const pay = (accountId: string, amount: number) =>
      write(
        on,
        (st) =>
          void insertTransaction(st, {
            account_id: accountId,
            date: '2026-12-16',
            amount,
            payee_id: payee.id,
            memo: null,
            category_id: null,
            cleared: 'uncleared',
            approved: true,
          }),
      );
    expect(nextOn(new Date('2026-12-15T23:00:00.000Z'))).toBe('2026-12-16');
    // Its day came and the sandbox entered nothing: still to come today, as in YNAB before it enters it.
    expect(nextOn(on)).toBe('2026-12-16');
    // A payment to the payee that day from another account is not this schedule's entry.
    const other = live(b!.accounts).find((a) => a.type === 'savings' && !a.closed)!;
    pay(other.id, -25_000);
    expect(nextOn(on)).toBe('2026-12-16');
    // Nor is one of another amount from its account (a second, different charge).
    pay(account.id, -9_000);
    expect(nextOn(on)).toBe('2026-12-16');
    pay(account.id, -25_000);
    expect(nextOn(on)).toBe('2027-01-16');
    // A month on, nothing entered yet for that day: due that day.
    expect(nextOn(new Date('2027-01-16T08:00:00.000Z'))).toBe('2027-01-16');
  });
});
