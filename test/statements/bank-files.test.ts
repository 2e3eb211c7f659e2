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
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { type ParsedStatement, StatementError } from '../../src/statements/index.js';
import { readStatement } from '../../src/writes/statement/statement-rows.js';
import { afterOutsideChange, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { rawTransactions } from '../writes/statement-helpers.js';

/** Beside the clone, as CI places it; BANK_FILES_DIR elsewhere (a worktree that is not beside shared/). */
const DIR = process.env.BANK_FILES_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/bank-files');

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

  /**
   * Each file the README expects read, imported into Demo Household's Everyday Checking with the
   * clock a few days after its last row (so the demo's own transactions share its days), after one
   * of its rows was entered by hand under a payee its text does not name, as people type them:
   * every booked row is matched or created once (the hand entry matched, not doubled), nothing
   * matched to a transaction of another amount or more than 10 days away, the created rows the
   * file's dates and amounts, their sum with the matched ones the README's; the same file again
   * adds nothing.
   */
  describe.each(all.filter((e) => e.figures && e.refusal !== 'required'))('importing $file into a demo account', (e) => {
    let h: McpHarness;
    let budget: string;
    let account: string;
    let parsed: ParsedStatement | undefined;
    beforeAll(async () => {
      try {
        parsed = (await readStatement({ path: join(DIR, e.file) }, true))!.parsed;
      } catch {
        parsed = undefined; // refused, as the README allows: the reading test above holds it to that
      }
      vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${addDays(e.figures!.last, 3)}T12:00:00Z`) });
      h = await mcpHarness({ sandbox: { seed: 'bank-files' }, flags: { localFiles: true } });
      const rec = h.sb.state.budgets.find((b) => b.rec.name === 'Demo Household')!.rec;
      budget = rec.id;
      account = [...rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
    }, 60_000);
    afterAll(async () => {
      await h.close();
      vi.useRealTimers();
    });

    it('0 doubles, 0 wrong; the second import adds nothing', async () => {
      if (!parsed) return;
      const booked = parsed.rows.filter((r) => !r.pending && r.amount !== 0);
      const typed = booked[0]!;
      const hand = (
        await h.sb.call('POST', `/budgets/${budget}/transactions`, {
          transaction: { account_id: account, date: typed.date, amount: typed.amount, payee_name: 'Typed By Hand Qq', cleared: 'uncleared', approved: true },
        })
      ).body.data.transaction;
      await afterOutsideChange();
      const before = await rawTransactions(h, budget, account);
      const args = { account_id: 'Everyday Checking', budget_id: budget, path: join(DIR, e.file) };
      const preview = ok(await h.call('import_statement', args));
      expect(preview.totals).toMatchObject({ rows: parsed.rows.length, conflict: 0, skipped: parsed.rows.length - booked.length });
      const rows = preview.rows as any[];
      // The hand entry is the row it was typed from (a one-line OFX puts every row on line 1's number).
      expect(rows.filter((r) => r.line === typed.line && r.date === typed.date && r.amount === typed.amount).map((r) => r.id)).toContain(hand.id);
      expect(rows.filter((r) => r.id === hand.id)).toHaveLength(1);
      // 0 wrong: a matched row's transaction has its amount, within 10 days.
      for (const r of rows.filter((x) => x.status === 'matched')) {
        const t = before.find((x) => x.id === r.id);
        expect(t.amount, `line ${r.line}`).toBe(r.amount);
        expect(Math.abs(Date.parse(t.date) - Date.parse(r.date)), `line ${r.line}`).toBeLessThanOrEqual(10 * 86_400_000);
      }
      const done = ok(await h.call('import_statement', { ...args, confirm_token: preview.confirm_token }));
      const after = await rawTransactions(h, budget, account);
      const made = after.filter((t) => !before.some((b) => b.id === t.id));
      expect(made).toHaveLength(preview.totals.new);
      expect(done.created).toBe(preview.totals.new);
      // 0 doubles: each new row once, at the file's date and amount; with the matched ones, the README's sum.
      const fresh = rows.filter((r) => r.status === 'new');
      expect(made.map((t) => `${t.date} ${t.amount}`).sort()).toEqual(fresh.map((r) => `${r.date} ${r.amount}`).sort());
      const matchedSum = rows.filter((r) => r.status === 'matched').reduce((n, r) => n + r.amount, 0);
      expect(matchedSum + made.reduce((n, t) => n + t.amount, 0)).toBe(e.figures!.sum);
      await afterOutsideChange();
      const again = ok(await h.call('import_statement', args));
      expect(again).toMatchObject({ created: 0, totals: { new: 0, conflict: 0, matched: booked.length } });
      expect(await rawTransactions(h, budget, account)).toHaveLength(after.length);
    }, 60_000);
  });
}
