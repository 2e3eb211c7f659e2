/**
 * What a new user does with the sandbox: `ynab-mcp sandbox statement` writes a bank file for a
 * demo account (through the built CLI), and import_statement imports it into the same seed's
 * sandbox, in every format and CSV preset. Expectations come from the generator's report and
 * the API's raw transactions:
 *  - the budget's own transactions in the file are matched (by import id, or by amount, date and
 *    the bank's description: transfers and descriptions cut short included), never new;
 *  - the rows the budget does not have are the new ones, created once with YNAB's import ids;
 *  - the row whose amount differs from the budget's is a conflict naming that transaction, and
 *    is not imported (importing it would enter the purchase twice);
 *  - the same file imported a second time creates nothing;
 *  - reconciled against the file before anything is fixed: the explanations' effects on the
 *    cleared balance add up to the difference, and create_adjustment is refused;
 *  - then reconciled against the same file: once the differing amount is fixed and the
 *    transaction the bank never had is deleted, what the statement lists is cleared and the
 *    account reconciles at the statement's balance.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CSV_PRESETS, STATEMENT_FORMATS } from '../../src/statements/index.js';
import { killAllCli, runCli } from '../helpers/cli.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { rawTransactions } from './statement-helpers.js';

const SEED = 'statement-roundtrip';
const ACCOUNT = 'Everyday Checking';
const dir = mkdtempSync(join(tmpdir(), 'ynab-roundtrip-'));
afterEach(() => killAllCli());

interface Report {
  rows: { date: string; amount: number; payee: string }[];
  discrepancies: {
    new_rows: { date: string; amount: number; payee: string }[];
    differing: { transaction_id: string; budget_amount: number; bank_amount: number };
    missing: { transaction_id: string };
  };
}

const cases = [
  ...STATEMENT_FORMATS.filter((f) => f !== 'csv').map((f) => ({ name: f, args: ['--format', f] })),
  ...CSV_PRESETS.map((p) => ({ name: `csv-${p.name}`, args: ['--format', 'csv', '--preset', p.name] })),
];

const harnesses: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
});

describe('a sandbox statement imported, twice', () => {
  it.each(cases)(
    '$name: matched, new and the differing amount as the generator says; the second import creates nothing',
    async ({ name, args }) => {
      const file = join(dir, name);
      const made = await runCli(['sandbox', 'statement', '--seed', SEED, '--account', ACCOUNT, '--out', file, '--report', `${file}.json`, ...args]);
      expect(made.code, made.stderr).toBe(0);
      const report = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Report;
      const h = await mcpHarness({ sandbox: { seed: SEED }, flags: { localFiles: true } });
      harnesses.push(h);
      const budget = h.sb.state.budgets[0]!.id;
      const account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === ACCOUNT)!.id;
      const before = await rawTransactions(h, budget, account);

      const { preview, result } = await confirmed(h, 'import_statement', { account_id: ACCOUNT, path: file });
      const { differing, new_rows: fresh } = report.discrepancies;
      expect(preview.totals).toMatchObject({
        rows: report.rows.length,
        new: fresh.length,
        conflict: 1,
        skipped: 0,
        matched: report.rows.length - fresh.length - 1,
      });
      const conflict = preview.rows.find((r: any) => r.status === 'conflict');
      expect(conflict).toMatchObject({ amount: differing.bank_amount, candidates: [differing.transaction_id] });
      const listedNew = preview.rows.filter((r: any) => r.status === 'new').map((r: any) => `${r.date} ${r.amount}`);
      expect(listedNew.sort()).toEqual(fresh.map((r) => `${r.date} ${r.amount}`).sort());
      // Every matched row is a transaction of the account with the row's amount, each once.
      const byId = new Map(before.map((t) => [t.id, t]));
      const matched = preview.rows.filter((r: any) => r.status === 'matched');
      for (const r of matched) expect(byId.get(r.id)?.amount, `${r.date} ${r.payee}`).toBe(r.amount);
      expect(new Set(matched.map((r: any) => r.id)).size).toBe(matched.length);

      expect(ok(result).created).toBe(fresh.length);
      const after = await rawTransactions(h, budget, account);
      expect(after).toHaveLength(before.length + fresh.length);
      for (const r of fresh)
        expect(
          after.filter((t) => t.import_id === `YNAB:${r.amount}:${r.date}:1`),
          `${r.date} ${r.amount}`,
        ).toHaveLength(1);
      expect(after.find((t) => t.id === differing.transaction_id).amount).toBe(differing.budget_amount);

      const again = ok(await h.call('import_statement', { account_id: ACCOUNT, path: file }));
      expect(again).toMatchObject({ created: 0, totals: { new: 0, conflict: 1, matched: report.rows.length - 1 } });
      expect(await rawTransactions(h, budget, account)).toHaveLength(after.length);
    },
    60_000,
  );

  it('the weekly flow on ofx: import, fix the differing amount, delete what the bank never had, reconcile against the file', async () => {
    const file = join(dir, 'flow.ofx');
    const made = await runCli(['sandbox', 'statement', '--seed', SEED, '--account', ACCOUNT, '--format', 'ofx', '--out', file, '--report', `${file}.json`]);
    expect(made.code, made.stderr).toBe(0);
    const report = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Report & { to: string; balance: { amount: number } };
    const h = await mcpHarness({ sandbox: { seed: SEED }, flags: { localFiles: true } });
    harnesses.push(h);
    const budget = h.sb.state.budgets[0]!.id;
    const account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === ACCOUNT)!.id;
    const { differing, missing } = report.discrepancies;
    const args = { account_id: ACCOUNT, statement_balance_milliunits: report.balance.amount, statement_date: report.to, path: file };
    // Reconciled before importing: the transactions the statement lists that YNAB has uncleared
    // are booked at the bank, the first explanation, and what applying would clear. Cash taken to
    // the wallet is an ATM withdrawal at the bank, which names no account, so its row matches the
    // budget's transfer by amount and day alone: the user's to confirm (unsure_match), not booked.
    // The demo has one uncleared on some days (2026-12-05, 2027-01-03).
    const raw = new Map((await rawTransactions(h, budget, account)).map((t) => [t.id, t]));
    const accounts = new Map(((await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts as any[]).map((a) => [a.id, a]));
    const toWallet = (t: any) => accounts.get(t.transfer_account_id)?.type === 'cash';
    const listed = ok(await h.call('import_statement', { account_id: ACCOUNT, path: file }));
    const open = listed.rows
      .filter((r: any) => r.status === 'matched' && raw.get(r.id).cleared === 'uncleared' && raw.get(r.id).date <= report.to)
      .map((r: any) => r.id);
    const booked = open.filter((id: string) => !toWallet(raw.get(id)));
    const atm = open.filter((id: string) => toWallet(raw.get(id)));
    expect(booked.length).toBeGreaterThan(0);
    const early = ok(await h.call('reconcile_account', args));
    expect(early.explanations[0]).toMatchObject({ kind: 'cleared_at_bank', count: booked.length });
    expect(early.explanations[0].transactions.map((t: any) => t.id).sort()).toEqual(booked.slice(0, 10).sort());
    const unsure = (early.explanations.find((e: any) => e.kind === 'unsure_match')?.rows ?? []).flatMap((r: any) => r.candidates.map((t: any) => t.id));
    for (const id of atm) expect(unsure).toContain(id);
    // Everything the generator did is explained: the explanations' effects on the cleared balance
    // add up to the difference, so no adjustment may hide the payment the bank never had.
    const upToTo = [...raw.values()].filter((t) => t.date <= report.to && t.cleared !== 'uncleared');
    const difference = report.balance.amount - upToTo.reduce((n, t) => n + t.amount, 0);
    expect(early).toMatchObject({ difference: difference, explained: difference, unexplained: 0 });
    expect(early.message).toMatch(/^Not reconciled: the difference is explained: /);
    const inBalance = (id: string) => raw.get(id).cleared !== 'uncleared';
    const pair = early.explanations.find((e: any) => e.kind === 'amount_differs').pairs.find((p: any) => p.transaction.id === differing.transaction_id);
    expect(pair.effect).toBe(differing.bank_amount - (inBalance(differing.transaction_id) ? differing.budget_amount : 0));
    const gone = early.explanations.find((e: any) => e.kind === 'missing_from_statement');
    expect(gone.transactions.map((t: any) => t.id)).toContain(missing.transaction_id);
    const refused = ok(await h.call('reconcile_account', { ...args, create_adjustment: true }));
    expect(refused.confirm_token).toBeUndefined();
    expect(refused.message).toMatch(/^create_adjustment refused: the difference is explained: /);

    ok((await confirmed(h, 'import_statement', { account_id: ACCOUNT, path: file })).result);
    const fixedId = await fixAmount(h, raw.get(differing.transaction_id), differing.bank_amount);

    // Before the stray transaction is deleted, the file names it as one the bank does not have.
    const first = ok(await h.call('reconcile_account', args));
    const kinds = first.explanations.map((e: any) => e.kind);
    expect(kinds).toContain('missing_from_statement');
    const stray = first.explanations.find((e: any) => e.kind === 'missing_from_statement');
    expect(stray.transactions.map((t: any) => t.id)).toContain(missing.transaction_id);
    ok((await confirmed(h, 'delete_transaction', { transaction_id: missing.transaction_id })).result);

    const txns = await rawTransactions(h, budget, account);
    const cleared = txns.filter((t) => t.cleared !== 'uncleared' && t.date <= report.to).reduce((n, t) => n + t.amount, 0);
    const { preview, result } = await confirmed(h, 'reconcile_account', args);
    expect(preview.difference).toBe(report.balance.amount - cleared);
    const fixed = txns.find((t) => t.id === fixedId);
    if (fixed.cleared === 'uncleared') {
      // The statement lists it, so it is booked: cleared by the reconcile, which then balances.
      expect(preview.explanations[0].kind).toBe('cleared_at_bank');
      expect(preview.explanations[0].transactions.map((t: any) => t.id)).toContain(fixedId);
    } else expect(preview.difference).toBe(0);
    expect(ok(result).change_id).toMatch(/\w/);
    const upTo = (await rawTransactions(h, budget, account)).filter((t) => t.date <= report.to);
    for (const t of upTo) if (t.cleared !== 'uncleared') expect(t.cleared, `${t.date} ${t.amount}`).toBe('reconciled');
    expect(upTo.find((t) => t.id === fixedId).cleared).toBe('reconciled');
    expect(upTo.filter((t) => t.cleared === 'reconciled').reduce((n, t) => n + t.amount, 0)).toBe(report.balance.amount);
  }, 60_000);
});

/**
 * The user's fix of a transaction's amount to the bank's; the id it has after. The generator may
 * pick a split (which it picks varies with the day): YNAB's API cannot change a split's amount, so
 * split_transaction writes it again, the difference on its first line, under a new id.
 */
async function fixAmount(h: McpHarness, t: any, amount: number): Promise<string> {
  if (!t.subtransactions.length) {
    ok(await h.call('update_transaction', { transaction_id: t.id, amount_milliunits: amount }));
    return t.id;
  }
  const lines = t.subtransactions
    .filter((x: any) => !x.deleted)
    .map((x: any, i: number) => ({ amount_milliunits: x.amount + (i === 0 ? amount - t.amount : 0), category_id: x.category_id, memo: x.memo }));
  const done = ok((await confirmed(h, 'split_transaction', { transaction_id: t.id, amount_milliunits: amount, subtransactions: lines })).result);
  expect(done.transaction.amount).toBe(amount);
  return done.transaction.id;
}
