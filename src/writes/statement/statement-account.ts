/**
 * Which of a file's statements is the account's. A file may hold several accounts (an OFX with
 * several STMTRS or CCSTMTRS, a QIF with several !Account blocks); one alone is the account's
 * without asking. Of several: the one `statement_account` names (its number, the number's last
 * digits, or its QIF name); else the one the YNAB account's name or note points to (the same QIF
 * name, or the number's last four digits written there); else the only one of the account's type
 * (the card statement for a credit card account). Where nothing decides, the call is refused,
 * listing the file's accounts and the argument that picks one, as an ambiguous name is
 * (src/mcp/resolve/names.ts): a guess would import one account's rows into another.
 */
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { describeAccount } from '../../statements/accounts.js';
import type { ParsedStatement } from '../../statements/index.js';

const digits = (s: string | undefined) => (s ?? '').replace(/\D/g, '');
const folded = (s: string) => s.normalize('NFC').trim().toLowerCase();

/**
 * YNAB's types a file's broader type stands for: a QIF "Bank" section is a checking or savings
 * account, an "Oth L" one any loan. A file that says CHECKING is not taken for a savings account.
 */
const BROADER: Record<string, string> = {
  checking: 'bank',
  savings: 'bank',
  mortgage: 'otherLiability',
  autoLoan: 'otherLiability',
  studentLoan: 'otherLiability',
  personalLoan: 'otherLiability',
  medicalDebt: 'otherLiability',
  otherDebt: 'otherLiability',
};

/** The statements `given` names: by number, name, or the number's last digits (two at least). */
function named(parts: readonly ParsedStatement[], given: string): ParsedStatement[] {
  const g = folded(given);
  const exact = parts.filter((p) => (p.account?.number && folded(p.account.number) === g) || (p.account?.name && folded(p.account.name) === g));
  if (exact.length) return exact;
  const d = digits(given);
  return d.length >= 2 && d.length === g.replace(/[\s-]/g, '').length ? parts.filter((p) => digits(p.account?.number).endsWith(d)) : [];
}

/** The one statement the account's name, note or type points to, and why; undefined when none or several. */
function pointedTo(parts: readonly ParsedStatement[], account: E.AccountBase): { part: ParsedStatement; why: string } | undefined {
  const one = (ps: ParsedStatement[]) => (ps.length === 1 ? ps[0] : undefined);
  const byName = one(parts.filter((p) => p.account?.name && folded(p.account.name) === folded(account.name)));
  if (byName) return { part: byName, why: `its name is the account's` };
  const said = `${account.name} ${account.note ?? ''}`;
  const byNumber = one(
    parts.filter((p) => {
      const last4 = digits(p.account?.number).slice(-4);
      return last4.length === 4 && new RegExp(`(?<!\\d)${last4}(?!\\d)`).test(said);
    }),
  );
  if (byNumber) return { part: byNumber, why: `the account's name or note has its number's last digits` };
  const byType = one(parts.filter((p) => p.account?.type === account.type)) ?? one(parts.filter((p) => p.account?.type === BROADER[account.type]));
  if (byType)
    return { part: byType, why: `it is the file's only ${byType.account!.type} statement, and ${JSON.stringify(account.name)} is a ${account.type} account` };
  return undefined;
}

export function pickStatement(parts: readonly ParsedStatement[], account: E.AccountBase | undefined, given: string | undefined): ParsedStatement {
  const listed = () => parts.map(describeAccount).join('; ');
  // A file that names no account (CSV, camt) is the account's, whatever statement_account says.
  if (parts.length === 1 && !parts[0]!.account) return parts[0]!;
  if (given !== undefined) {
    const found = named(parts, given);
    if (found.length !== 1) {
      throw new ArgumentError(
        `statement_account ${JSON.stringify(given.slice(0, 60))} names ${found.length ? `${found.length} of the file's accounts` : "none of the file's accounts"}: ${listed()}; give one's number (or last digits) or name`,
      );
    }
    const part = found[0]!;
    if (parts.length > 1) part.decisions.unshift(`the file holds ${parts.length} accounts: read ${describeAccount(part)}, as statement_account says`);
    return part;
  }
  if (parts.length === 1) return parts[0]!;
  const pick = account ? pointedTo(parts, account) : undefined;
  if (!pick) {
    throw new ArgumentError(
      `the file holds ${parts.length} accounts' statements: ${listed()}; nothing in it says which is ${account ? JSON.stringify(account.name) : 'the account'} ` +
        '(no name, number or type of the file matches it). Give statement_account: the number (or its last digits) or name of the one to read',
    );
  }
  pick.part.decisions.unshift(`the file holds ${parts.length} accounts: read ${describeAccount(pick.part)}, as ${pick.why}`);
  return pick.part;
}
