/**
 * `ynab-mcp sandbox statement`: a realistic bank file for a demo account, so a new user can try
 * importing and reconciling without a bank or an account. Reads the budgets the sandbox serves for
 * the seed (or the sandbox saved at --data FILE) without starting it.
 */
import { writeFileSync } from 'node:fs';
import { loadDurable } from '../sandbox/durable.js';
import type { BudgetRec } from '../sandbox/store/records.js';
import { newUsers } from '../sandbox/users.js';
import { parseFlags, intFlag, UsageError } from '../shared/cli-flags.js';
import { CSV_PRESETS, STATEMENT_FORMATS, type StatementFormat, writeStatement } from '../statements/index.js';
import { SERVE_SANDBOX_SEED } from './sandbox-seed.js';
import { bankView } from './statement-bank.js';

export const STATEMENT_USAGE = `Usage: ynab-mcp sandbox statement --account NAME --format FORMAT [options]

Writes a bank statement file for a demo account, as its bank would: the account's
transactions in the period with bank-style payee text, plus the differences a real
statement has: N rows the budget does not have yet, one amount that differs, one
cleared budget row the bank never had, and the statement (closing) balance.

Options:
  --account NAME       the account (an unknown name lists the accounts)
  --format F           ${STATEMENT_FORMATS.join(' | ')}
  --preset P           CSV layout: ${CSV_PRESETS.map((p) => p.name).join(', ')}
                       (default us-checking; de-girokonto for a EUR budget)
  --discrepancies N    rows the budget does not have (default 3; 0 = a statement that
                       matches the budget exactly)
  --seed S             the seed of the sandbox the file is for (default "${SERVE_SANDBOX_SEED}", the
                       one ynab-mcp sandbox and serve --sandbox use)
  --data FILE          read the sandbox saved at FILE instead
  --budget ID|NAME     the budget, by id or name (default the first)
  --from DATE          first day (default 30 days before --to)
  --to DATE            last day (default today, UTC)
  --out FILE           write the file there (default stdout)
  --report FILE        write what the file holds and what differs, as JSON
`;

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!ISO_DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new UsageError(`--${flag} must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return value;
}

function budgets(flags: { data?: string; seed?: string }): BudgetRec[] {
  if (flags.data) {
    const loaded = loadDurable(flags.data, (line) => process.stderr.write(`${line}\n`));
    if (!loaded) throw new UsageError(`--data ${flags.data}: no such sandbox file`);
    return loaded.data.users[0]?.budgets ?? [];
  }
  return newUsers({ seed: flags.seed ?? SERVE_SANDBOX_SEED, now: new Date() }, 1, 1)[0]!.budgets;
}

/** The budget `--budget` names: by id, else by name (case aside), as the tools' budget_id takes either. */
function budgetNamed(all: BudgetRec[], wanted: string): BudgetRec | undefined {
  const w = wanted.trim().toLowerCase();
  return all.find((b) => b.id.toLowerCase() === w) ?? all.find((b) => b.name.toLowerCase() === w);
}

export function statementCommand(argv: string[]): void {
  const flags = parseFlags(argv, {
    account: { type: 'string' },
    format: { type: 'string' },
    preset: { type: 'string' },
    discrepancies: { type: 'string' },
    seed: { type: 'string' },
    data: { type: 'string' },
    budget: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    report: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags.help) {
    process.stdout.write(STATEMENT_USAGE);
    return;
  }
  const format = flags.format as StatementFormat | undefined;
  if (!format || !STATEMENT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${STATEMENT_FORMATS.join(', ')}`);
  if (flags.preset !== undefined && format !== 'csv') throw new UsageError('--preset is for --format csv');
  if (flags.preset !== undefined && !CSV_PRESETS.some((p) => p.name === flags.preset))
    throw new UsageError(`--preset must be one of ${CSV_PRESETS.map((p) => p.name).join(', ')}`);
  const to = day(flags.to, 'to') ?? new Date().toISOString().slice(0, 10);
  const from = day(flags.from, 'from') ?? new Date(Date.parse(`${to}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  const all = budgets(flags);
  const budget = flags.budget === undefined ? all[0] : budgetNamed(all, flags.budget);
  if (!budget)
    throw new UsageError(`--budget: no budget with the id or name "${flags.budget}"; budgets: ${all.map((b) => `"${b.name}" (${b.id})`).join(', ')}`);
  const accounts = [...budget.accounts.values()].filter((a) => !a.deleted && !a.closed);
  const account = accounts.find((a) => a.name.toLowerCase() === (flags.account ?? '').toLowerCase());
  if (!account)
    throw new UsageError(
      `--account: ${flags.account === undefined ? 'required' : `no open account "${flags.account}" in "${budget.name}"`}; accounts: ${accounts.map((a) => `"${a.name}"`).join(', ')}`,
    );
  const view = bankView(budget, account, {
    from,
    to,
    seed: flags.seed ?? SERVE_SANDBOX_SEED,
    discrepancies: intFlag(flags.discrepancies, 'discrepancies', 0, 50) ?? 3,
  });
  const text = writeStatement(view.statement, format, flags.preset);
  if (flags.out) writeFileSync(flags.out, text);
  else process.stdout.write(text);
  const s = view.statement;
  if (flags.report) {
    const report = {
      budget: budget.name,
      account: account.name,
      format,
      preset: flags.preset ?? null,
      from,
      to,
      rows: s.rows,
      balance: { amount: s.balance, date: to },
      currency: s.account.currency,
      discrepancies: view.discrepancies,
    };
    writeFileSync(flags.report, `${JSON.stringify(report, null, 2)}\n`);
  }
  process.stderr.write(
    `ynab-mcp sandbox statement: ${s.rows.length} rows of "${account.name}" from ${from} to ${to}, ${view.discrepancies.new_rows.length} new to the budget${flags.out ? `, written to ${flags.out}` : ''}\n`,
  );
}
