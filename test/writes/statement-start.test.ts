/**
 * import_statement respects the budget's start and reads rows as people would, across three seeds,
 * each today on the middle of a month and on the first of one (this process's clock, which the
 * server and the sandbox share), and two row dates, through a real MCP client against the sandbox over HTTP, every expectation from
 * the API's raw data: rows before the account's starting balance or the budget's first month are
 * held apart (not imported unless include_before_start), with their effect stated, and the
 * stated effect is what the API shows once they are imported (the first month, Ready to Assign);
 * bank text becomes a payee name as people write it; a cash withdrawal gets no category by vote;
 * a refund gets its purchase's category, which the confirm answer keeps; a matched row shows the
 * transaction it matched. A real bank's file read in place (../shared/bank-files, beside the clone,
 * never copied in): Schwab's CSV marks its ATM withdrawal only in its Type column, and the preview
 * still takes it as cash.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths, currentMonth } from '../../src/api/dates.js';
import { foldText } from '../../src/shared/text.js';
import { cleanPayeeName } from '../../src/statements/payee-text.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, decimal, freeAmount, rawTransactions, type Row } from './statement-helpers.js';

const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

/** Today, in turn: the middle of this month and the first of the next (this process's clock, which the server and the sandbox share). */
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
let today = '';
const CASES = ['statement-start-a', 'statement-start-b', 'statement-start-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));
const SCHWAB = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/bank-files/csv2ofx/schwab-checking.csv');

/** The Schwab file's rows as it writes them (every cell quoted, one row a line), read here apart from the reader. */
function schwabRows(): { line: number; type: string; text: string; amount: number }[] {
  const lines = readFileSync(SCHWAB, 'utf8').split(/\r?\n/);
  const cells = (line: string) => [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  const head = cells(lines[0]!);
  const col = (name: string) => head.indexOf(name);
  // "$1,036.47" → milliunits, by digits: whole cents.
  const money = (c: string) => (c ? Number(c.replace(/[$,.]/g, '')) * 10 : 0);
  return lines.flatMap((line, i) => {
    if (i === 0 || !line.trim()) return [];
    const c = cells(line);
    return [{ line: i + 1, type: c[col('Type')]!, text: c[col('Description')]!, amount: money(c[col('Deposit')]!) - money(c[col('Withdrawal')]!) }];
  });
}

describe('bank text as people write it', () => {
  it.each([
    ['PAYPAL INST XFER 220803~ Tran: ACHDW', 'PayPal'],
    ['MCDONALDS #4471', "McDonald's"],
    ["MCDONALD'S #112", "McDonald's"],
    ['ACME CORP PAYROLL PPD ID 9700', 'Acme Corp Payroll'],
    ['SQ *BLUE BOTTLE COFFEE', 'Blue Bottle Coffee'],
  ])('%s is %s', (text, name) => expect(cleanPayeeName(text)).toBe(name));
});

describe.each(CASES)('import_statement (seed %s on %s)', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  const NAME = 'Everyday Checking';
  const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    today = date;
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0, flags: { localFiles: true } });
    budget = h.sb.state.budgets[0]!.id;
    account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === NAME)!.id;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  it('rows before the start are held apart, their effect stated; imported when asked, the API shows that effect; undo', async () => {
    const firstMonth = (await get('')).budget.first_month as string;
    const raw = await rawTransactions(h, budget, account);
    const start = raw.find((t) => t.payee_name === 'Starting Balance').date as string;
    const early: Row[] = [
      { date: addDays(firstMonth, -40), payee: 'OLD HARDWARE 12', amount: -120_450 },
      { date: addDays(firstMonth, -70), payee: 'OLD GROCER', amount: -94_820 },
    ];
    const late: Row = { date: addDays(today, -2), payee: 'NEW KIOSK', amount: freeAmount(raw, addDays(today, -2), new Set(), -8_310) };
    const args = { account_id: NAME, content: csv([...early, late]), columns: COLUMNS };
    const net = early.reduce((n, r) => n + r.amount, 0);
    const earliest = early[1]!.date;
    const months = (Number(firstMonth.slice(0, 4)) - Number(earliest.slice(0, 4))) * 12 + Number(firstMonth.slice(5, 7)) - Number(earliest.slice(5, 7));
    const preview = ok(await h.call('import_statement', args));
    expect(preview.before_start).toMatchObject({
      count: 2,
      net: net,
      earliest,
      account_start: start,
      budget_first_month: firstMonth,
      imported: false,
    });
    expect(preview.before_start.effect).toContain(
      `the budget's first month would move from ${firstMonth.slice(0, 7)} to ${earliest.slice(0, 7)} (${months} months added)`,
    );
    for (const r of preview.rows.filter((x: any) => early.some((e) => e.date === x.date)))
      expect(r).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/include_before_start: true/) });
    expect(preview.totals).toMatchObject({ new: 1 });

    const month = currentMonth();
    const rtaBefore = (await get(`/months/${month}`)).month.to_be_budgeted;
    const { preview: asked, result } = await confirmed(h, 'import_statement', { ...args, include_before_start: true });
    expect(asked.before_start.imported).toBe(true);
    const done = ok(result);
    expect(done.created).toBe(3);
    // What the preview said, as the API now has it.
    expect((await get('')).budget.first_month).toBe(currentMonth(new Date(`${earliest}T00:00:00Z`)));
    expect((await get(`/months/${month}`)).month.to_be_budgeted - rtaBefore).toBe(net);
    ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
    expect(await rawTransactions(h, budget, account)).toEqual(raw);
  }, 60_000);

  it.skipIf(!existsSync(SCHWAB))(
    "Schwab's real CSV: the ATM row, marked only in its Type column, is cash (no category by vote); the other rows are not",
    async () => {
      const accounts = (await get('/accounts')).accounts;
      const wallet = accounts.find((a: any) => a.type === 'cash' && a.on_budget && !a.closed && !a.deleted && a.id !== account);
      const rows = schwabRows();
      const atm = rows.find((r) => r.type === 'ATM')!;
      expect(atm.text).not.toMatch(/atm|cash/i);
      // Its rows are from 2022, before the budget starts: asked for, so that they are previewed as new.
      const preview = ok(await h.call('import_statement', { account_id: NAME, path: SCHWAB, include_before_start: true }));
      const shown = (line: number) => preview.rows.find((r: any) => r.line === line);
      expect(shown(atm.line)).toMatchObject({ status: 'new', amount: atm.amount });
      expect(shown(atm.line).category).toBeUndefined();
      expect(shown(atm.line).suggestion).toEqual({
        category: null,
        ...(wallet ? { transfer_to: wallet.name } : {}),
        why: expect.stringContaining('a cash withdrawal (the bank\'s type "ATM")'),
      });
      for (const r of rows.filter((x) => x !== atm)) expect(shown(r.line).suggestion?.why ?? '').not.toMatch(/cash withdrawal/);
    },
  );

  it('an OFX row typed ATM (TRNTYPE), its text only the bank of the machine, is cash too', async () => {
    const date = addDays(today, -3);
    const raw = await rawTransactions(h, budget, account);
    const amount = freeAmount(raw, date, new Set(), -80_000);
    const day = date.replace(/-/g, '');
    const ofx = `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>USD
<BANKACCTFROM><BANKID>9<ACCTID>4321<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>${day}<DTEND>${day}
<STMTTRN><TRNTYPE>ATM<DTPOSTED>${day}<TRNAMT>${decimal(amount)}<FITID>ATM1<NAME>BMO HARRIS BANK</STMTTRN>
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;
    const accounts = (await get('/accounts')).accounts;
    const wallet = accounts.find((a: any) => a.type === 'cash' && a.on_budget && !a.closed && !a.deleted && a.id !== account);
    const row = ok(await h.call('import_statement', { account_id: NAME, content: ofx })).rows[0];
    expect(row).toMatchObject({ status: 'new', amount: amount });
    expect(row.category).toBeUndefined();
    expect(row.suggestion).toEqual({
      category: null,
      ...(wallet ? { transfer_to: wallet.name } : {}),
      why: expect.stringContaining('(the bank\'s type "ATM")'),
    });
  });

  it.each([2, 15])(
    'payee names, a cash withdrawal, a refund and a matched row (rows %i days ago); the confirm keeps the category; undo',
    async (back) => {
      const date = addDays(today, -back);
      const raw = await rawTransactions(h, budget, account);
      const all = (await get('/transactions')).transactions.filter((t: any) => !t.deleted);
      const payees = (await get('/payees')).payees.filter((p: any) => !p.deleted && !p.transfer_account_id);
      const accounts = (await get('/accounts')).accounts;
      const wallet = accounts.find((a: any) => a.type === 'cash' && a.on_budget && !a.closed && !a.deleted && a.id !== account);
      const categoryName = new Map<string, string>(
        (await get('/categories')).category_groups.flatMap((g: any) => g.categories.map((c: any) => [c.id, c.name])),
      );
      // A purchase in checking with a category, of a payee no other purchase has at that amount: refunded in full.
      const bought = raw.find(
        (t) =>
          t.amount < 0 &&
          t.category_id &&
          t.payee_id &&
          !t.transfer_account_id &&
          !t.subtransactions.length &&
          t.date <= date &&
          t.payee_name !== 'Starting Balance',
      );
      const same = all
        .filter((t: any) => t.payee_id === bought.payee_id && t.amount === bought.amount && t.date <= date && t.category_id)
        .sort((a: any, b: any) => (a.date < b.date ? 1 : -1))[0];
      const matched = raw.find((t) => t.date <= today && t.date >= addDays(today, -30) && t.payee_name && !t.transfer_account_id && t.amount !== 0);
      const used = new Set<number>();
      const rows: Row[] = [
        { date, payee: 'PAYPAL INST XFER 220803~ Tran: ACHDW', amount: freeAmount(raw, date, used, -57_270) },
        { date, payee: 'MCDONALDS #4471', amount: freeAmount(raw, date, used, -6_600) },
        { date, payee: 'ATM WITHDRAWAL 001234', amount: freeAmount(raw, date, used, -60_000) },
        { date, payee: bought.payee_name, amount: -bought.amount },
        { date: matched.date, payee: matched.payee_name, amount: matched.amount },
      ];
      const preview = ok(await h.call('import_statement', { account_id: NAME, content: csv(rows), columns: COLUMNS }));
      const row = (text: string) => preview.rows.find((r: any) => (r.bank_text ?? r.payee) === text);
      const known = (name: string) => payees.find((p: any) => foldText(p.name) === foldText(name))?.name ?? name;
      expect(row(rows[0]!.payee).payee).toBe(known('PayPal'));
      expect(row(rows[1]!.payee).payee).toBe(known("McDonald's"));
      const cash = row('ATM WITHDRAWAL 001234');
      expect(cash.category).toBeUndefined();
      expect(cash.suggestion).toMatchObject({ category: null, ...(wallet ? { transfer_to: wallet.name } : {}) });
      const refund = preview.rows.find((r: any) => r.status === 'new' && r.amount === -bought.amount);
      expect(refund.category).toBe(categoryName.get(same.category_id));
      const m = preview.rows.find((r: any) => r.status === 'matched' && r.line === rows.length + 1);
      const t = all.find((x: any) => x.id === m.id);
      expect(m.matched).toEqual({ date: t.date, payee: t.payee_name, amount: t.amount, amount_formatted: usd(t.amount) });
      const { result } = await confirmed(h, 'import_statement', { account_id: NAME, content: csv(rows), columns: COLUMNS });
      const done = ok(result);
      const made = done.created_rows.find((r: any) => r.amount === -bought.amount);
      expect(made.category).toBe(refund.category);
      expect((await get(`/transactions/${made.id}`)).transaction.category_id).toBe(same.category_id);
      ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
    },
    60_000,
  );
});
