/**
 * A QIF file cut into its accounts, as Quicken writes it: `!Account` blocks naming the account
 * (N) and its type (T) before each `!Type:` section of transactions, lists (`!Type:Cat`, `Class`,
 * `Memorized`, `Security`, `Prices`, …) that are no account's rows, and `!Option:AutoSwitch` …
 * `!Clear:AutoSwitch` around a list of accounts. Each bank, cash, card, asset or liability
 * section's lines go to qif-ts; investment sections are not statements of money in and out.
 */
import { refuse, shown } from './refusal.js';

export interface QifLine {
  /** Trimmed. */
  text: string;
  /** 1-based line of the file. */
  no: number;
}

export interface QifAccount {
  /** The `!Type:` header qif-ts takes for these lines. */
  header: string;
  /** YNAB's word for the account's type. */
  type: string;
  name?: string;
  /** The line of its (first) `!Type:` header. */
  line: number;
  lines: QifLine[];
}

/** `!Type:` values of accounts with transactions, by their folded name: qif-ts's header and YNAB's type. */
const ACCOUNT_SECTIONS: Record<string, { header: string; type: string }> = {
  bank: { header: '!Type:Bank', type: 'bank' },
  cash: { header: '!Type:Cash', type: 'cash' },
  ccard: { header: '!Type:CCard', type: 'creditCard' },
  creditcard: { header: '!Type:CCard', type: 'creditCard' },
  otha: { header: '!Type:Oth A', type: 'otherAsset' },
  othl: { header: '!Type:Oth L', type: 'otherLiability' },
};
const INVESTMENT = new Set(['invst', 'port', 'invest', 'investment', 'mutual', '401(k)/403(b)', '401k']);
const LISTS = new Set(['cat', 'class', 'memorized', 'security', 'prices', 'template', 'budget', 'invoice', 'bill', 'payee', 'tag']);
const fold = (s: string) => s.toLowerCase().replace(/[\s_]+/g, '');

/** Detail lines qif-ts does not know that carry nothing a statement row needs: U (T again), F (flag), K, B, X… (QuickBooks), 1–7 (loans). */
export const IGNORED_DETAIL = /^(?:[UFKB]|X.|[1-7])/;

export interface QifFile {
  accounts: QifAccount[];
  /** The date order an `!Option:MDY` or `!Option:DMY` line states (Quicken writes one where the locale's is not the default). */
  dateOrder?: 'MM/DD/YYYY' | 'DD/MM/YYYY';
  /** Sections not read (investment accounts), for the preview's decisions. */
  skipped: string[];
}

/** The name (N) and type (T) of the last account in an `!Account` block. */
function accountBlock(lines: readonly QifLine[]): { name?: string; type?: string } {
  let name: string | undefined;
  let type: string | undefined;
  for (const l of lines) {
    if (l.text[0] === 'N') name = l.text.slice(1).trim() || undefined;
    else if (l.text[0] === 'T') type = l.text.slice(1).trim();
  }
  return { ...(name ? { name } : {}), ...(type ? { type } : {}) };
}

export function qifSections(text: string): QifFile {
  const raw = text.split('\n');
  const accounts: QifAccount[] = [];
  const skipped: string[] = [];
  let autoswitch = false;
  let dateOrder: QifFile['dateOrder'];
  let named: { name?: string; type?: string } | undefined;
  let current: QifAccount | undefined;
  let header: QifLine | undefined;
  let block: QifLine[] = [];
  // An !Account block names the account of the !Type: section after it; between !Option:AutoSwitch
  // and !Clear:AutoSwitch, a block of several accounts is a list of them, naming none.
  const close = () => {
    const records = block.filter((l) => l.text.startsWith('^')).length;
    if (header && /^!Account$/i.test(header.text)) named = autoswitch && records > 1 ? undefined : accountBlock(block);
    block = [];
  };
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!.trim();
    if (t === '') continue;
    const l = { text: t, no: i + 1 };
    if (!t.startsWith('!')) {
      if (!header)
        throw refuse({
          line: l.no,
          found: `${shown(t)} before any header`,
          expected: 'a QIF file starting with !Type:Bank (or Cash, CCard, Oth A, Oth L) or !Account',
          fix: 'give format if the file is not a QIF',
        });
      if (current) current.lines.push(l);
      else if (/^!Account$/i.test(header.text)) block.push(l);
      continue;
    }
    close();
    header = l;
    current = undefined;
    const m = /^!(?:(Type)\s*:\s*(.*)|(Option|Clear)\s*:\s*(.*)|(Account)\s*)$/i.exec(t);
    if (m?.[3]) {
      const option = fold(m[4]!);
      if (option === 'autoswitch') autoswitch = m[3].toLowerCase() === 'option';
      if (option === 'mdy' || option === 'dmy') dateOrder = option === 'mdy' ? 'MM/DD/YYYY' : 'DD/MM/YYYY';
      continue;
    }
    if (m?.[5]) continue;
    const kind = m?.[1] ? fold(m[2]!) : undefined;
    const section = kind === undefined ? undefined : ACCOUNT_SECTIONS[kind];
    if (section) {
      const name = named?.name;
      const found = accounts.find((a) => (name ? a.name === name : !a.name && a.header === section.header));
      current = found ?? { header: section.header, type: section.type, ...(name ? { name } : {}), line: l.no, lines: [] };
      if (!found) accounts.push(current);
      named = undefined;
    } else if (kind !== undefined && INVESTMENT.has(kind)) {
      skipped.push(`line ${l.no}: ${t}${named?.name ? ` (account ${JSON.stringify(named.name)})` : ''} is an investment account's transactions: not read`);
      named = undefined;
    } else if (kind === undefined || !LISTS.has(kind)) {
      throw refuse({
        line: l.no,
        found: `the section ${shown(t)}`,
        expected: "!Type:Bank, !Type:Cash, !Type:CCard, !Type:Oth A or !Type:Oth L (an account's transactions), !Account, or a list such as !Type:Cat",
      });
    }
  }
  if (!accounts.length) {
    const first = skipped[0];
    const at = first ? /^line (\d+): (.*): not read$/.exec(first) : null;
    throw refuse({
      ...(at ? { line: Number(at[1]) } : {}),
      found: at ? at[2]!.replace(' is an ', ', an ') : "no account's transactions",
      expected: "a bank, cash or card account's transactions (!Type:Bank, !Type:Cash, !Type:CCard, !Type:Oth A, !Type:Oth L)",
      fix: "export the account's bank or cash transactions instead",
    });
  }
  return { accounts, skipped, ...(dateOrder ? { dateOrder } : {}) };
}
