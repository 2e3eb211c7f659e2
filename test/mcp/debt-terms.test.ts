/**
 * A debt account's terms as people read them, wherever an account is answered: list_accounts and
 * get_account (compact and full detail) show the interest rate in effect today as a percentage
 * (YNAB sends thousandths of a percent: 4500 for 4.5%) and the minimum payment and escrow as
 * money, next to YNAB's own maps. Expected values are worked out here from the API's raw accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, usd } from '../insights/raw.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

/** The entry in effect today of YNAB's date → value map. */
function today(map: Record<string, number> | null): number | undefined {
  const now = new Date().toISOString().slice(0, 10);
  const start = Object.keys(map ?? {})
    .filter((d) => d <= now)
    .sort()
    .at(-1);
  return start === undefined ? undefined : map![start];
}

/** Thousandths of a percent as a percentage, by hand: 5875 → "5.875%". */
const percent = (rate: number) => `${String(rate / 1000)}%`;

function expectedDebt(a: any): Record<string, unknown> | undefined {
  const rate = today(a.debt_interest_rates);
  const minimum = today(a.debt_minimum_payments);
  const escrow = today(a.debt_escrow_amounts);
  if (rate === undefined && minimum === undefined && escrow === undefined) return undefined;
  return {
    ...(rate !== undefined ? { interest_rate: percent(rate) } : {}),
    ...(minimum !== undefined ? { minimum_payment: minimum, minimum_payment_formatted: usd(minimum) } : {}),
    ...(escrow !== undefined ? { escrow_amount: escrow, escrow_amount_formatted: usd(escrow) } : {}),
  };
}

describe('debt terms of accounts', () => {
  it('list_accounts shows each loan’s rate as a percentage and its payments as money', async () => {
    const r = await raw(h.sb);
    const res = ok(await h.call('list_accounts', { limit: 100 }));
    const loans = r.accounts.filter((a) => expectedDebt(a));
    expect(loans.length).toBeGreaterThanOrEqual(3);
    for (const a of r.accounts) {
      const row = res.accounts.find((x: any) => x.id === a.id);
      expect(row.debt, a.name).toEqual(expectedDebt(a));
    }
  });

  it('get_account says the same, in compact and full detail (beside YNAB’s maps)', async () => {
    const r = await raw(h.sb);
    const mortgage = r.accounts.find((a) => a.type === 'mortgage');
    const compact = ok(await h.call('get_account', { account_id: mortgage.id }));
    expect(compact.account.debt).toEqual(expectedDebt(mortgage));
    expect(compact.account.debt.escrow_amount).toBeGreaterThan(0);
    const full = ok(await h.call('get_account', { account_id: mortgage.id, detail: 'full' }));
    expect(full.account.debt).toEqual(expectedDebt(mortgage));
    expect(full.account.debt_interest_rates).toEqual(mortgage.debt_interest_rates);
  });
});
