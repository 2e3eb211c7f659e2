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
 *  - the same file imported a second time creates nothing.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CSV_PRESETS, STATEMENT_FORMATS } from '../../src/statements/index.js';
import { killAllCli, runCli } from '../helpers/cli.js';
import { confirmed, mcpHarness, ok } from '../helpers/mcp.js';
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
      expect(conflict).toMatchObject({ amount_milliunits: differing.bank_amount, candidates: [differing.transaction_id] });
      const listedNew = preview.rows.filter((r: any) => r.status === 'new').map((r: any) => `${r.date} ${r.amount_milliunits}`);
      expect(listedNew.sort()).toEqual(fresh.map((r) => `${r.date} ${r.amount}`).sort());
      // Every matched row is a transaction of the account with the row's amount, each once.
      const byId = new Map(before.map((t) => [t.id, t]));
      const matched = preview.rows.filter((r: any) => r.status === 'matched');
      for (const r of matched) expect(byId.get(r.id)?.amount, `${r.date} ${r.payee}`).toBe(r.amount_milliunits);
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
});
