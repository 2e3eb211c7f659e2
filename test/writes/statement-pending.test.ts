/**
 * Pending rows of bank CSVs through the tools, against the sandbox over HTTP: a row a status
 * column marks pending ("Umsatz vorgemerkt" in an Info column) is listed as skipped, pending,
 * and never created; a row with a blank booking date beside the date it was made (Revolut's
 * "Completed Date") is not counted by reconcile_account among the rows missing from YNAB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { decimal, freeAmount, rawTransactions } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'statement-pending' } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
}, 60_000);
afterAll(() => h.close());

const de = (date: string) => `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`;
const deAmount = (m: number) => decimal(m).replace('.', ',');

describe('pending statement rows', () => {
  it('import_statement lists a row its status column marks pending as skipped and never creates it', async () => {
    const before = await rawTransactions(h, budget, account);
    const used = new Set<number>();
    const [booked, pending] = [freeAmount(before, addDays(today, -2), used, -51_230), freeAmount(before, addDays(today, -1), used, -61_450)];
    const content = [
      'Buchungstag;Valutadatum;Beguenstigter/Zahlungspflichtiger;Verwendungszweck;Betrag;Waehrung;Info',
      `${de(addDays(today, -1))};${de(addDays(today, -1))};Vorgemerkt Markt;Karte;${deAmount(pending)};EUR;Umsatz vorgemerkt`,
      `${de(addDays(today, -2))};${de(addDays(today, -2))};Gebucht Markt;Karte;${deAmount(booked)};EUR;Umsatz gebucht`,
    ].join('\n');
    const args = { account_id: 'Everyday Checking', content };
    const preview = ok(await h.call('import_statement', args));
    const row = (payee: string) => preview.rows.find((r: any) => r.payee === payee);
    expect(row('Vorgemerkt Markt')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/pending/) });
    expect(row('Gebucht Markt')).toMatchObject({ status: 'new', amount: booked });
    expect(preview.totals).toMatchObject({ rows: 2, new: 1, skipped: 1 });

    const done = ok(await h.call('import_statement', { ...args, confirm_token: preview.confirm_token }));
    expect(done.created).toBe(1);
    const after = await rawTransactions(h, budget, account);
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((t) => t.amount === pending && t.date === addDays(today, -1))).toHaveLength(0);
  }, 60_000);

  it('reconcile_account does not count a pending row (blank Completed Date) among the rows missing from YNAB', async () => {
    const txns = await rawTransactions(h, budget, account);
    const used = new Set<number>();
    const [booked, pending] = [freeAmount(txns, addDays(today, -2), used, -71_110), freeAmount(txns, addDays(today, -1), used, -81_220)];
    const cleared = txns.filter((t) => t.date <= today && t.cleared !== 'uncleared').reduce((n, t) => n + t.amount, 0);
    const content = [
      'Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance',
      `CARD_PAYMENT,Current,${addDays(today, -2)} 10:00:00,${addDays(today, -2)} 12:00:00,Booked Cafe,${decimal(booked)},0.00,EUR,COMPLETED,100.00`,
      `CARD_PAYMENT,Current,${addDays(today, -1)} 09:00:00,,Pending Cafe,${decimal(pending)},0.00,EUR,PENDING,`,
    ].join('\n');
    const preview = ok(await h.call('reconcile_account', { account_id: 'Everyday Checking', statement_balance_milliunits: cleared + booked, content }));
    const missing = preview.explanations.find((e: any) => e.kind === 'missing_from_ynab');
    expect(missing).toMatchObject({ count: 1, effect: booked, rows: [{ payee: 'Booked Cafe' }] });
  }, 60_000);
});
