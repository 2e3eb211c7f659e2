/**
 * SWIFT MT940 customer statements (and MT950, the same fields) and MT942 interim transaction
 * reports, by @centrapay/swift-parser (docs/dependencies.md says why that one): each :61: a row
 * (D negative, a reversal RD/RC of the opposite sign, amounts exact as BigNumber), its :86: the
 * payee and memo (structured ?20/?32 or /NAME/ /REMI/ subfields where the bank writes them), the
 * last :62F:/:62M: closing balance as the statement balance. Several statements of one account
 * (:25:) are read together; of several accounts, refused.
 *
 * The library (with moment and bignumber.js) is required on the first SWIFT file, not with the
 * other readers: most users never give one.
 */
import { createRequire } from 'node:module';
import { refuse, shown } from './refusal.js';
import { elementLines } from './structured.js';
import { lineIndex, optionalText } from './text.js';
import type { ParsedStatement, ReadFormat, StatementRow } from './types.js';

interface Decimal {
  multipliedBy(n: number): Decimal;
  toFixed(digits: number): string;
}
interface SwiftTransaction {
  date: Date;
  entryDate: Date | '';
  amount: Decimal;
  reference: string;
  bankReference: string;
  extraDetails: string;
  transactionType: string;
  details: string;
  structuredDetails: Record<string, string> | undefined;
}
interface SwiftStatement {
  accountIdentification: string;
  currency: string;
  closingBalance?: Decimal;
  closingBalanceDate?: Date;
  transactions: SwiftTransaction[];
}
interface SwiftParser {
  parse(opts: { data: string; type: 'mt940' | 'mt942'; validate?: boolean }): SwiftStatement[];
}

let parser: SwiftParser | undefined;
const swiftParser = (): SwiftParser => (parser ??= createRequire(import.meta.url)('@centrapay/swift-parser') as SwiftParser);

const FIELD_SHAPES: Record<string, string> = {
  '61': 'YYMMDD[MMDD], C or D (RC/RD for a reversal), the amount with a decimal comma, a type code and a reference, as in :61:2401150115D12,50NTRFNONREF',
  '60': 'C or D, YYMMDD, the currency and the amount, as in :60F:C240101EUR1234,56',
  '62': 'C or D, YYMMDD, the currency and the amount, as in :62F:C240131EUR1234,56',
  '28': 'the statement number, as in :28C:1/1',
  '13': 'YYMMDDhhmm and a UTC offset, as in :13D:2401151200+0100',
};
const EXPECTED_FIELDS = 'the fields of an MT940 statement or MT942 report (:20:, :25:, :28C:, :60F:, :61:, :86:, :62F:; :13D: and :34F: in MT942)';

/** The line where a field holding `needle` starts (the library names a field's text, not its line). */
function lineOf(text: string, needle: string, tag?: string): number | undefined {
  const i = tag ? text.search(new RegExp(`^:${tag}[A-Z]?:${needle.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm')) : text.indexOf(needle);
  return i >= 0 ? lineIndex(text)(i) : undefined;
}

/** The library's error, as a refusal that names the line and the field's expected shape. */
function refusalOf(e: unknown, text: string, type: string): Error {
  const message = e instanceof Error ? e.message : String(e);
  const unknown = /^Unknown tag (\S+)/.exec(message);
  if (unknown) {
    const line = lineOf(text, '', unknown[1]!.replace(/\D+$/, ''));
    return refuse({ ...(line ? { line } : {}), element: `:${unknown[1]}:`, found: `a field ${type.toUpperCase()} does not define`, expected: EXPECTED_FIELDS });
  }
  const field = /^Cannot parse tag (\w+): ([\s\S]*)$/.exec(message);
  if (field) {
    const line = lineOf(text, field[2]!, field[1]);
    return refuse({ ...(line ? { line } : {}), element: `:${field[1]}:`, found: shown(field[2]), expected: FIELD_SHAPES[field[1]!] ?? EXPECTED_FIELDS });
  }
  const sums = /^Sum of lines \((\S+)\) != turnover \((\S+)\)/.exec(message);
  const value = /(?:mark|parsed|expected): (.*)$/.exec(message)?.[1];
  const line = value ? lineOf(text, value) : undefined;
  const group = /in group (\d+)/.exec(message)?.[1];
  const where = group ? elementLines(text, /^:20:/gm, 'statements')[Number(group) - 1] : undefined;
  return refuse({
    ...((line ?? where) ? { line: line ?? where } : {}),
    found: sums
      ? `entries (:61:) adding up to ${sums[1]} in statement ${group}, while its balances (:60F: to :62F:) move by ${sums[2]}`
      : message.replace(/ in group \d+$/, group ? ` in statement ${group}` : ''),
    expected: sums ? 'entries that add up to the closing minus the opening balance, as the bank wrote them' : EXPECTED_FIELDS,
  });
}

const day = (d: Date): string => d.toISOString().slice(0, 10);

/** The booking (entry) date, MMDD beside the value date's year: a booking in early January of a December value date is next year's. */
function bookingDay(t: SwiftTransaction): string {
  if (!t.entryDate) return day(t.date);
  const entry = new Date(t.entryDate);
  const gap = (entry.getTime() - t.date.getTime()) / 86_400_000;
  if (gap > 183) entry.setUTCFullYear(entry.getUTCFullYear() - 1);
  if (gap < -183) entry.setUTCFullYear(entry.getUTCFullYear() + 1);
  return day(entry);
}

const joined = (s: Record<string, string>, keys: string[], sep = ''): string | undefined => optionalText(keys.map((k) => s[k] ?? '').join(sep));
const REMITTANCE = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];

/** Payee and memo from :86:: German ?32/?33 name and ?20–?29 purpose, /NAME/ or /CNTP/ and /REMI/, else its text. */
function partiesOf(t: SwiftTransaction): { payee: string; memo?: string } {
  const s = t.structuredDetails;
  if (s) {
    const name =
      joined(s, ['32', '33']) ?? optionalText(s['NAME']) ?? optionalText(s['CNTP']?.split('/')[2]) ?? optionalText(s['BENM']) ?? optionalText(s['ORDP']);
    const memo = joined(s, REMITTANCE) ?? optionalText(s['REMI']) ?? optionalText(s['USTD']);
    const payee = name ?? optionalText(s['00']) ?? memo ?? optionalText(t.details) ?? '';
    return { payee, ...(memo && memo !== payee ? { memo } : {}) };
  }
  const [first, ...rest] = t.details.split('\n');
  const payee = optionalText(first) ?? optionalText(t.extraDetails) ?? optionalText(t.reference) ?? t.transactionType;
  const memo = rest.length ? optionalText(t.details) : undefined;
  return { payee, ...(memo ? { memo } : {}) };
}

const reference = (v: string): string | undefined => (/^\s*NONREF\s*$/i.test(v) ? undefined : optionalText(v));

function rowOf(t: SwiftTransaction, line: number): StatementRow {
  const id = reference(t.bankReference) ?? reference(t.reference);
  return {
    line,
    date: bookingDay(t),
    amount: Number(t.amount.multipliedBy(1000).toFixed(0)),
    ...partiesOf(t),
    ...(id ? { bank_id: id } : {}),
  };
}

export function readSwift(source: string, format: Extract<ReadFormat, 'mt940' | 'mt942'>): ParsedStatement {
  // The library splits lines at LF (CR LF); a file of classic Mac line ends is one line to it.
  // Lines before the first block or :20: (ABN AMRO writes "ABNANL2A", "940" above each file) are
  // blanked, not dropped, so that lines keep their numbers.
  const lf = source.replace(/^\uFEFF/, '').replace(/\r(?!\n)/g, '\n');
  const start = lf.search(/^(?::20:|\{1:)/m);
  const text = start > 0 ? lf.slice(0, start).replace(/[^\n]/g, '') + lf.slice(start) : lf;
  const lines = elementLines(text, /^:61:/gm, 'entries');
  if (!/^:20:/m.test(text)) throw refuse({ line: 1, found: 'no :20: field', expected: EXPECTED_FIELDS, fix: 'give format "auto" if the file is not SWIFT' });
  let statements: SwiftStatement[];
  try {
    statements = swiftParser().parse({ data: text, type: format, validate: true });
  } catch (e) {
    throw refusalOf(e, text, format);
  }
  const accounts = [...new Set(statements.map((s) => s.accountIdentification.trim()))];
  if (accounts.length > 1) {
    const at = elementLines(text, /^:25:/gm, 'accounts');
    throw refuse({
      line: at[statements.findIndex((s) => s.accountIdentification.trim() !== accounts[0])],
      element: ':25:',
      found: `statements of ${accounts.length} accounts (${accounts.map((a) => shown(a)).join(', ')})`,
      expected: 'the statements of one account',
      fix: 'export one account at a time',
    });
  }
  const rows = statements.flatMap((s) => s.transactions).map((t, i) => rowOf(t, lines[i] ?? 0));
  const last = statements.at(-1)!;
  const name = format === 'mt942' ? 'MT942 interim report' : 'MT940 statement';
  const several = statements.length > 1 ? ` from ${statements.length} statements of one account` : '';
  const decisions = [
    `read as ${name}: ${rows.length} entr${rows.length === 1 ? 'y' : 'ies'}${several}`,
    'dates are booking dates (:61: entry date), else value dates',
  ];
  let balance: ParsedStatement['balance'];
  if (format === 'mt940' && last.closingBalance && last.closingBalanceDate) {
    balance = { amount: Number(last.closingBalance.multipliedBy(1000).toFixed(0)), date: day(last.closingBalanceDate) };
    decisions.push('statement balance from the closing balance (:62F:)');
  }
  const currency = optionalText(last.currency);
  return { format, rows, ...(balance ? { balance } : {}), ...(currency ? { currency } : {}), decisions };
}
