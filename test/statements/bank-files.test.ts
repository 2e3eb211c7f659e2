/**
 * Real bank files, as banks write them: every file of ../shared/bank-files (beside the clone, as
 * CI places it; never copied into the repository) read through the tools' own path (the file
 * decoded as the tools decode it, then parsed) and held to its README's "Expected": how many
 * booked, non-zero rows, their sum in milliunits, the first and last date, the pending rows; a
 * refusal where it says so. The expectations are read from the README's table, so a file added
 * there is checked here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ParsedStatement, StatementError } from '../../src/statements/index.js';
import { readStatement } from '../../src/writes/statement/statement-rows.js';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/bank-files');

interface Figures {
  count: number;
  sum: number;
  first: string;
  last: string;
  pending?: number;
}
interface Expected {
  file: string;
  /** Read, with these figures (undefined: must be refused). */
  figures?: Figures;
  /** A refusal is right (malformed), or allowed ("refused clearly, or: …", "…; if read: …"). */
  refusal: 'required' | 'allowed' | 'wrong';
  text: string;
}

/** "6 booked rows, sum 86560 milliunits, 2022-01-02..2022-01-14; 2 pending row(s); 1 zero row(s)" */
function figuresOf(text: string): Figures | undefined {
  const m = /(\d+) booked rows?, sum (-?\d+) milliunits, (\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})/.exec(text);
  if (!m) return undefined;
  const pending = /(\d+) pending row/.exec(text)?.[1];
  return { count: Number(m[1]), sum: Number(m[2]), first: m[3]!, last: m[4]!, ...(pending ? { pending: Number(pending) } : {}) };
}

/** The README's table: one row per file, its last cell the expectation. */
export function expectations(readme: string): Expected[] {
  const out: Expected[] = [];
  for (const line of readme.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line.slice(1, -1).split(' | ');
    const file = /`([^`]+)`/.exec(cells[0]!)![1]!;
    const text = cells.at(-1)!.trim();
    const figures = figuresOf(text);
    const refusal = !figures ? 'required' : /refused|if read:/.test(text) ? 'allowed' : 'wrong';
    out.push({ file, text, refusal, ...(figures ? { figures } : {}) });
  }
  return out;
}

/** What a statement holds, counted as the README counts: booked (not pending), non-zero rows. */
function figuresRead(s: ParsedStatement): Figures {
  const booked = s.rows.filter((r) => !r.pending && r.amount !== 0);
  const days = booked.map((r) => r.date).sort();
  return {
    count: booked.length,
    sum: booked.reduce((n, r) => n + r.amount, 0),
    first: days[0] ?? '',
    last: days.at(-1) ?? '',
    pending: s.rows.filter((r) => r.pending).length,
  };
}

if (!existsSync(join(DIR, 'README.md'))) {
  it.skip('../shared/bank-files is absent beside the clone: the real bank files are not checked here', () => {});
} else {
  const all = expectations(readFileSync(join(DIR, 'README.md'), 'utf8'));

  it('finds every file the README lists, and a table of them', () => {
    expect(all.length).toBeGreaterThanOrEqual(30);
    expect(all.filter((e) => !existsSync(join(DIR, e.file)))).toEqual([]);
  });

  it("csv2ofx/schwab-checking.csv keeps each row's Type (ATM, CHECK, ACH, DEPOSIT): the ATM row says it only there", async () => {
    const file = join(DIR, 'csv2ofx/schwab-checking.csv');
    // The file's own cells, read here apart from the reader: every cell is quoted, one row a line.
    const lines = readFileSync(file, 'utf8').split(/\r?\n/);
    const cells = (line: string) => [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    const type = cells(lines[0]!).indexOf('Type');
    const description = cells(lines[0]!).indexOf('Description');
    expect(type).toBeGreaterThanOrEqual(0);
    const want = lines.flatMap((line, i) => (i > 0 && line.trim() ? [{ line: i + 1, kind: cells(line)[type], text: cells(line)[description] }] : []));
    expect(want.find((w) => w.kind === 'ATM')?.text).not.toMatch(/atm|cash/i);
    const parsed = (await readStatement({ path: file }, true))!.parsed;
    expect(parsed.rows.map((r) => ({ line: r.line, kind: r.kind, text: r.payee }))).toEqual(want);
  });

  it("ofxtools/stmtrs.ofx keeps each row's TRNTYPE: its ATM row has no NAME or MEMO, only that", async () => {
    const file = join(DIR, 'ofxtools/stmtrs.ofx');
    // The file's own STMTTRN aggregates, read here apart from the reader.
    const trns = [...readFileSync(file, 'utf8').matchAll(/<STMTTRN>([\s\S]*?)<\/STMTTRN>/g)].map((m) => m[1]!);
    const want = trns.map((t) => /<TRNTYPE>([^<\s]+)/.exec(t)![1]);
    expect(want).toContain('ATM');
    expect(trns[want.indexOf('ATM')]).not.toMatch(/<NAME>|<MEMO>/);
    const parsed = (await readStatement({ path: file }, true))!.parsed;
    expect(parsed.rows.map((r) => r.kind)).toEqual(want);
  });

  describe.each(all)('$file', (e) => {
    it(`${e.text}`, async () => {
      let parsed: ParsedStatement;
      try {
        parsed = (await readStatement({ path: join(DIR, e.file) }, true))!.parsed;
      } catch (err) {
        expect(err).toBeInstanceOf(StatementError);
        const message = (err as Error).message;
        if (e.refusal === 'wrong') throw new Error(`refused, but the README expects it read (${e.text}): ${message}`);
        // A refusal names where (a line, or the element) and what was expected, as every refusal
        // does; and a file that is not CSV is never refused with a CSV parser's message.
        expect(message).toMatch(/^(line \d+|<[^>]+>)/);
        expect(message).toMatch(/expected/i);
        if (!e.file.endsWith('.csv')) expect(message).not.toMatch(/Invalid Opening Quote|Quote Not Closed|Invalid Record Length|no header row|header on line/);
        return;
      }
      if (e.refusal === 'required') throw new Error(`read ${parsed.rows.length} rows, but the README expects a refusal (${e.text})`);
      const want = e.figures!;
      const got = figuresRead(parsed);
      expect({ ...got, pending: want.pending === undefined ? undefined : got.pending }).toEqual({ ...want, pending: want.pending });
    });
  });
}
