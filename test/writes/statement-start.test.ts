/**
 * import_statement respects the budget's start and reads rows as people would, across three seeds
 * and two dates, through a real MCP client against the sandbox over HTTP, every expectation from
 * the API's raw data: rows before the account's starting balance or the budget's first month are
 * held apart (not imported unless include_before_start), with their effect stated, and the
 * stated effect is what the API shows once they are imported (the first month, Ready to Assign);
 * bank text becomes a payee name as people write it; a cash withdrawal gets no category by vote;
 * a refund gets its purchase's category, which the confirm answer keeps; a matched row shows the
 * transaction it matched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, currentMonth } from '../../src/api/dates.js';
import { foldText } from '../../src/shared/text.js';
import { cleanPayeeName } from '../../src/statements/payee-text.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
import { COLUMNS, csv, freeAmount, rawTransactions, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);

describe('bank text as people write it', () => {
  it.each([
    ['PAYPAL INST XFER 220803~ Tran: ACHDW', 'PayPal'],
    ['MCDONALDS #4471', "McDonald's"],
    ["MCDONALD'S #112", "McDonald's"],
    ['ACME CORP PAYROLL PPD ID 9700', 'Acme Corp Payroll'],
    ['SQ *BLUE BOTTLE COFFEE', 'Blue Bottle Coffee'],
  ])('%s is %s', (text, name) => expect(cleanPayeeName(text)).toBe(name));
});

describe.each(['statement-start-a', 'statement-start-b', 'statement-start-c'])('import_statement (seed %s)', (seed) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  const NAME = 'Everyday Checking';
  const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;

  beforeAll(async () => {
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    budget = h.sb.state.budgets[0]!.id;
    account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === NAME)!.id;
  }, 60_000);
  afterAll(() => h?.close());

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
