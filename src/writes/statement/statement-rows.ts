/**
 * How the statement tools show a statement: rows compact (status, line, date, payee, amount in
 * milliunits beside its formatted text, the transaction matched or made), the ones a person must look at first (conflicts,
 * new, skipped, then matched), at most ROWS_SHOWN with how many more; and the file read from
 * `content` or `path`, parsed by src/statements (the arguments' shape is theirs).
 */
import { createHash } from 'node:crypto';
import type * as E from '../../api/schemas/entities.js';
import type { CsvColumns, ParsedStatement, ReadFormat } from '../../statements/index.js';
import { pickStatement } from './statement-account.js';
import type { RowMatch, RowStatus } from './statement-match.js';
import { statementText } from './statement-source.js';
import { moneyOf } from '../pipeline/after-state.js';
import type { Shown } from '../pipeline/entities.js';

/** Rows listed in an answer; the rest are counted. */
export const ROWS_SHOWN = 50;

const ORDER: Record<RowStatus, number> = { conflict: 0, new: 1, skipped: 2, matched: 3 };

/** One row as an answer lists it. `made`: the id of the transaction created for it. */
export function rowShown(s: Shown, m: RowMatch, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    line: m.row.line,
    status: m.status,
    date: m.row.date,
    payee: m.row.payee,
    ...moneyOf(s, 'amount', m.row.amount),
    ...(m.id ? { id: m.id, by: m.by } : {}),
    ...(m.candidates ? { candidates: m.candidates } : {}),
    ...(m.reason ? { reason: m.reason } : {}),
    ...extra,
  };
}

/** The rows to list, most telling first, and a notice for the rest. */
export function rowsShown(
  s: Shown,
  ms: readonly RowMatch[],
  extra: (m: RowMatch) => Record<string, unknown> = () => ({}),
): { rows: Record<string, unknown>[]; notice?: string } {
  const sorted = [...ms].sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.row.line - b.row.line);
  const rows = sorted.slice(0, ROWS_SHOWN).map((m) => rowShown(s, m, extra(m)));
  const more = ms.length - rows.length;
  return {
    rows,
    ...(more > 0 ? { notice: `${rows.length} of ${ms.length} rows are listed (conflicts, new and skipped first); ${more} more are counted in totals.` } : {}),
  };
}

/** Counts by status. */
export function statusCounts(ms: readonly RowMatch[]): Record<RowStatus, number> {
  const out: Record<RowStatus, number> = { matched: 0, new: 0, conflict: 0, skipped: 0 };
  for (const m of ms) out[m.status] += 1;
  return out;
}

/** The file arguments as the tools take them (src/statements' STATEMENT_FILE_ARGS). */
export interface FileArgs {
  content?: string | undefined;
  path?: string | undefined;
  format?: string | undefined;
  columns?: CsvColumns | undefined;
  statement_account?: string | undefined;
}

/** A statement read and parsed, with a digest of its text (what a confirm token binds, rather than the text). */
export interface ReadStatement {
  parsed: ParsedStatement;
  digest: string;
}

/**
 * Reads the statement (content or path) and parses it; undefined when none was given and it is
 * optional. Of a file with several accounts, the statement of `account` (statement-account.ts).
 */
export async function readStatement(a: FileArgs, localFiles: boolean, optional = false, account?: E.AccountBase): Promise<ReadStatement | undefined> {
  const text = await statementText(a, localFiles, optional);
  if (text === undefined) return undefined;
  // The readers and their parser libraries load with the first file, not with the tool list.
  const { parseStatements } = await import('../../statements/index.js');
  const parts = parseStatements({
    content: text,
    ...(a.format ? { format: a.format as 'auto' | ReadFormat } : {}),
    ...(a.columns ? { columns: a.columns } : {}),
  });
  const parsed = pickStatement(parts, account, a.statement_account);
  return { parsed, digest: createHash('sha256').update(text).digest('hex').slice(0, 32) };
}

/** The file's canonical arguments for a confirm token: its digest, not its text or where it was read. */
export function fileBinding(a: FileArgs, s: ReadStatement): Record<string, unknown> {
  return {
    file_sha256: s.digest,
    format: a.format ?? 'auto',
    ...(a.columns ? { columns: a.columns } : {}),
    ...(a.statement_account !== undefined ? { statement_account: a.statement_account } : {}),
  };
}
