/**
 * `ynab-mcp sandbox statement` through the built CLI: every format and preset it writes is read
 * back by parseStatement to the rows and balance it reports, and the differences from the budget
 * are the ones it says, checked against the same seed's sandbox over HTTP.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CSV_PRESETS, parseStatement, STATEMENT_FORMATS } from '../../src/statements/index.js';
import { killAllCli, runCli } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'ynab-statement-'));
const ACCOUNT = 'Everyday Checking';
afterEach(() => killAllCli());

interface Report {
  from: string;
  to: string;
  rows: { date: string; amount: number; payee: string; memo?: string; bank_id: string }[];
  balance: { amount: number; date: string };
  discrepancies: {
    new_rows: { date: string; amount: number; payee: string }[];
    differing: { transaction_id: string; budget_amount: number; bank_amount: number };
    missing: { transaction_id: string; date: string; amount: number };
  };
}

async function generate(name: string, args: string[]): Promise<{ text: string; report: Report }> {
  const out = join(dir, name);
  const res = await runCli(['sandbox', 'statement', '--seed', 'test', '--account', ACCOUNT, '--out', out, '--report', `${out}.json`, ...args]);
  expect(res.code, res.stderr).toBe(0);
  return { text: readFileSync(out, 'utf8'), report: JSON.parse(readFileSync(`${out}.json`, 'utf8')) as Report };
}

const key = (r: { date: string; amount: number; payee: string }) => `${r.date} ${r.amount} ${r.payee}`;

const cases = [
  ...STATEMENT_FORMATS.filter((f) => f !== 'csv').map((f) => ({ name: f, args: ['--format', f], balance: f !== 'qif', ids: f !== 'qif' })),
  ...CSV_PRESETS.map((p) => ({ name: `csv-${p.name}`, args: ['--format', 'csv', '--preset', p.name], balance: p.balance !== undefined, ids: false })),
];

describe('sandbox statement round trip', () => {
  it.each(cases)('$name is read back to the rows and balance it reports', async ({ name, args, balance, ids }) => {
    const { text, report } = await generate(name, args);
    const parsed = parseStatement({ content: text });
    expect(parsed.rows.map(key).sort()).toEqual(report.rows.map(key).sort());
    if (ids) expect(parsed.rows.map((r) => r.bank_id).sort()).toEqual(report.rows.map((r) => r.bank_id).sort());
    if (balance) expect(parsed.balance?.amount).toBe(report.balance.amount);
    else expect(parsed.balance).toBeUndefined();
  });

  it('answers --help and refuses an unknown account, listing the accounts', async () => {
    const help = await runCli(['sandbox', 'statement', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--discrepancies N/);
    const bad = await runCli(['sandbox', 'statement', '--seed', 'test', '--account', 'Nope', '--format', 'csv']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no open account "Nope".*"Everyday Checking"/);
  });
});

describe('sandbox statement against the budget', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await testSandbox({ seed: 'test' });
  });
  afterAll(() => sb?.close());

  it('holds N rows the budget lacks, one differing amount, one budget row left out, and a balance that adds up', async () => {
    const { text, report } = await generate('vs-budget', ['--format', 'ofx', '--discrepancies', '4']);
    const parsed = parseStatement({ content: text });
    const budgets = (await sb.get('/budgets')).body.data.budgets as { id: string; name: string }[];
    const budget = budgets.find((b) => b.name === 'Demo Household')!;
    const accounts = (await sb.get(`/budgets/${budget.id}/accounts`)).body.data.accounts as { id: string; name: string }[];
    const account = accounts.find((a) => a.name === ACCOUNT)!;
    const txns = (
      (await sb.get(`/budgets/${budget.id}/accounts/${account.id}/transactions`)).body.data.transactions as {
        id: string;
        date: string;
        amount: number;
        cleared: string;
      }[]
    ).filter((t) => t.date <= report.to);
    const inPeriod = txns.filter((t) => t.date >= report.from);
    const { new_rows, differing, missing } = report.discrepancies;
    expect(new_rows).toHaveLength(4);
    expect(parsed.rows).toHaveLength(inPeriod.length - 1 + 4);
    const budgetTx = (id: string) => inPeriod.find((t) => t.id === id)!;
    expect(budgetTx(differing.transaction_id).amount).toBe(differing.budget_amount);
    expect(differing.bank_amount).not.toBe(differing.budget_amount);
    expect(parsed.rows.some((r) => r.amount === differing.bank_amount)).toBe(true);
    // The row the bank never had is in YNAB's cleared balance: left out, it is a difference a reconcile names.
    expect(budgetTx(missing.transaction_id).amount).toBe(missing.amount);
    expect(budgetTx(missing.transaction_id).cleared).not.toBe('uncleared');
    // Every budget row but the missing one is in the file, by date and amount (the differing one at the bank's amount).
    const fileRows = parsed.rows.map((r) => `${r.date} ${r.amount}`);
    for (const t of inPeriod) {
      if (t.id === missing.transaction_id) continue;
      const amount = t.id === differing.transaction_id ? differing.bank_amount : t.amount;
      const i = fileRows.indexOf(`${t.date} ${amount}`);
      expect(i, `${t.date} ${amount}`).toBeGreaterThanOrEqual(0);
      fileRows.splice(i, 1);
    }
    expect(fileRows.sort()).toEqual(new_rows.map((r) => `${r.date} ${r.amount}`).sort());
    const expected =
      txns.reduce((s, t) => s + t.amount, 0) - missing.amount + (differing.bank_amount - differing.budget_amount) + new_rows.reduce((s, r) => s + r.amount, 0);
    expect(parsed.balance?.amount).toBe(expected);
  });
});
