/**
 * The demo pays its cards (issue 42 item 12), read over HTTP from the sandbox on three seeds and
 * two dates (the middle of a month, the first of one): every credit card and line of credit that
 * owes money at the start of a complete month gets at least its minimum that month, and a card
 * opened this month with a carried balance (the store card) gets its minimum this month, no later
 * than today. The minimum, written here: 1% of what is owed, at least $25, at most what is owed.
 * Ready to Assign stays at least zero in the current month of every demo budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const CREDIT = new Set(['creditCard', 'lineOfCredit']);
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const nextMonth = (m: string) => new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 1)).toISOString().slice(0, 10);
const DATES = [`${month0.slice(0, 8)}15`, nextMonth(month0)];
const SEEDS = ['test', 'demo-cards-a', 'demo-cards-b'];

const minimum = (owed: number) => Math.min(owed, Math.max(25_000, Math.round(owed / 100 / 10) * 10));

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('demo cards, seed %s on %s', (seed, date) => {
  let sb: TestSandbox;
  const current = `${date.slice(0, 7)}-01`;
  beforeAll(async () => {
    sb = await testSandbox({ seed, clock: () => new Date(`${date}T12:00:00Z`) });
  });
  afterAll(() => sb.close());

  it('pays every card carrying a balance at least its minimum every month, and keeps Ready to Assign at least zero', async () => {
    const budgets = (await sb.get('/budgets')).body.data.budgets;
    let checked = 0;
    for (const budget of budgets) {
      const b = `/budgets/${budget.id}`;
      const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted && CREDIT.has(a.type));
      const txns = (await sb.get(`${b}/transactions?since_date=1990-01-01`)).body.data.transactions.filter((t: any) => !t.deleted);
      const months = (await sb.get(`${b}/months`)).body.data.months.map((m: any) => m.month as string).filter((m: string) => m <= current);
      for (const a of accounts) {
        const mine = txns.filter((t: any) => t.account_id === a.id);
        for (const m of months) {
          const end = m === current ? date : new Date(Date.parse(`${nextMonth(m)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
          // Owed at the start of the month; for an account opened this month, its opening balance.
          const before = mine.filter((t: any) => t.date < m).reduce((s: number, t: any) => s + t.amount, 0);
          const opening = mine
            .filter((t: any) => t.date >= m && t.date <= end && t.payee_name === 'Starting Balance')
            .reduce((s: number, t: any) => s + t.amount, 0);
          const owed = -(before + opening);
          const openedNow = opening < 0 && !mine.some((t: any) => t.date < m);
          if (owed <= 0 || (m === current && !openedNow)) continue;
          const paid = mine
            .filter((t: any) => t.date >= m && t.date <= end && t.transfer_account_id && t.amount > 0)
            .reduce((s: number, t: any) => s + t.amount, 0);
          expect(paid, `${budget.name}: ${a.name} in ${m} owes ${owed}`).toBeGreaterThanOrEqual(minimum(owed));
          checked++;
        }
      }
      const month = (await sb.get(`${b}/months/${current}`)).body.data.month;
      expect(month.to_be_budgeted, `${budget.name}: Ready to Assign in ${current}`).toBeGreaterThanOrEqual(0);
    }
    expect(checked).toBeGreaterThan(3);
  });
});
