/**
 * import_statement through a real MCP client against the sandbox over HTTP, every expectation
 * computed from the API's raw transactions:
 *  - the preview changes nothing and gives each row its status: matched by import id, matched
 *    to a hand-entered transaction (same amount, similar payee, within 10 days), matched by amount
 *    and date alone (same amount nearby, another payee: YNAB's import matching), new, skipped
 *    (zero, before since_date);
 *  - the confirm creates the new rows once, as YNAB's imports arrive (cleared, unapproved, import
 *    id YNAB:<milliunits>:<date>:<occurrence>), marks the matched hand-entered one cleared, in at
 *    most 3 requests; the same file again creates nothing;
 *  - undo removes what was created and puts the cleared state back;
 *  - a malformed file is refused naming the line, nothing written; `path` reads a local file
 *    where the server is local, and is refused where it is not (hosted, or HTTP beyond loopback).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { serverOptions } from '../../src/commands/server-setup.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;
const requests: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({
    sandbox: { seed: 'import-statement' },
    flags: { localFiles: true },
    stack: { onRequest: (r) => requests.push(`${r.method} ${r.path}`) },
  });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
}, 60_000);
afterAll(() => h.close());

const payeeName = (t: any) => t.payee_name as string;

/** A statement built from the account's raw transactions: one of each status. */
async function statement() {
  const txns = await rawTransactions(h, budget, account, addDays(today, -60));
  const used = new Set<number>();
  // Matched by import id: an imported transaction, first of its amount and date.
  const imported = txns.find((t) => t.import_id === `YNAB:${t.amount}:${t.date}:1` && t.date >= addDays(today, -45));
  // Hand-entered, uncleared, with a payee; its amount alone within 10 days among hand-entered ones.
  const handEntered = (t: any) => !t.import_id && !t.matched_transaction_id && !t.transfer_account_id;
  const lonely = (t: any) =>
    txns.filter((x) => x.id !== t.id && x.amount === t.amount && Math.abs(Date.parse(x.date) - Date.parse(t.date)) <= 10 * 86_400_000).length === 0;
  const since = addDays(today, -45);
  const typed = txns.filter((t) => handEntered(t) && t.payee_name && lonely(t) && t.date <= today && t.date >= since);
  const toClear = typed.find((t) => t.cleared === 'uncleared') ?? typed[0];
  const other = typed.find((t) => t.id !== toClear.id);
  expect(imported && toClear && other, 'the demo account has an imported, and two hand-entered transactions').toBeTruthy();
  const fresh = [0, 1, 2].map((i) => ({
    date: addDays(today, -3 - i),
    payee: `Statement Shop ${i}`,
    amount: freeAmount(txns, addDays(today, -3 - i), used, -91_370 - i * 1000),
  }));
  const rows: Row[] = [
    { date: imported.date, payee: payeeName(imported) ?? 'Bank', amount: imported.amount },
    { date: toClear.date, payee: payeeName(toClear).toUpperCase(), amount: toClear.amount },
    { date: other.date, payee: 'Zyxwvut Qqq', amount: other.amount },
    ...fresh,
    { date: addDays(today, -2), payee: 'Zero Fee', amount: 0 },
    { date: addDays(today, -59), payee: 'Too Early', amount: -1_230 },
  ];
  return { rows, imported, toClear, other, fresh, since };
}

describe('import_statement', () => {
  it('previews every row, creates the new ones once, clears the matched one; the same file again creates nothing; undo takes it back', async () => {
    const s = await statement();
    const args = { account_id: 'Everyday Checking', content: csv(s.rows), columns: COLUMNS, since_date: s.since };
    const before = await rawTransactions(h, budget, account);
    const preview = ok(await h.call('import_statement', args));
    expect(preview.preview).toBe(true);
    expect(await rawTransactions(h, budget, account)).toEqual(before);
    const status = (payee: string) => preview.rows.find((r: any) => r.payee === payee);
    expect(status(s.rows[0]!.payee)).toMatchObject({ status: 'matched', id: s.imported.id, by: 'import_id' });
    expect(status(s.rows[1]!.payee)).toMatchObject({ status: 'matched', id: s.toClear.id, by: 'payee' });
    expect(status('Zyxwvut Qqq')).toMatchObject({ status: 'matched', id: s.other.id, by: 'amount' });
    for (const f of s.fresh) expect(status(f.payee)).toMatchObject({ status: 'new', amount: f.amount, date: f.date });
    expect(status('Zero Fee')).toMatchObject({ status: 'skipped' });
    expect(status('Too Early')).toMatchObject({ status: 'skipped' });
    const uncleared = [s.toClear, s.other].filter((t) => t.cleared === 'uncleared').length;
    expect(preview.totals).toMatchObject({ rows: 8, matched: 3, new: 3, conflict: 0, skipped: 2, to_clear: uncleared });
    expect(preview.totals.new_net).toBe(s.fresh.reduce((n, f) => n + f.amount, 0));

    requests.length = 0;
    const done = ok(await h.call('import_statement', { ...args, confirm_token: preview.confirm_token }));
    expect(requests.length, requests.join('\n')).toBeLessThanOrEqual(3);
    expect(done.created).toBe(3);
    const after = await rawTransactions(h, budget, account);
    for (const f of s.fresh) {
      const made = after.filter((t) => t.import_id === `YNAB:${f.amount}:${f.date}:1`);
      expect(made).toHaveLength(1);
      expect(made[0]).toMatchObject({ amount: f.amount, date: f.date, payee_name: f.payee, cleared: 'cleared', approved: false });
    }
    expect(after.find((t) => t.id === s.toClear.id).cleared).toBe(s.toClear.cleared === 'uncleared' ? 'cleared' : s.toClear.cleared);
    expect(after.find((t) => t.id === s.other.id).cleared).toBe(s.other.cleared === 'uncleared' ? 'cleared' : s.other.cleared);
    expect(after).toHaveLength(before.length + 3);

    // The same file again: everything is there, nothing to confirm, nothing created.
    const again = ok(await h.call('import_statement', args));
    expect(again.preview).toBeUndefined();
    expect(again).toMatchObject({ created: 0, totals: { matched: 6, new: 0, conflict: 0 } });
    expect(await rawTransactions(h, budget, account)).toHaveLength(after.length);

    const { result } = await confirmed(h, 'undo_change', { change_id: done.change_id });
    expect(ok(result).restored).toHaveLength(3 + uncleared);
    const undone = await rawTransactions(h, budget, account);
    expect(undone.map((t) => t.id).sort()).toEqual(before.map((t) => t.id).sort());
    expect(undone.find((t) => t.id === s.toClear.id).cleared).toBe(s.toClear.cleared);
  }, 60_000);

  it('refuses a malformed file naming the line, and writes nothing', async () => {
    const before = await rawTransactions(h, budget, account);
    const res = await h.call('import_statement', {
      account_id: 'Everyday Checking',
      content: `Date,Payee,Amount\n${addDays(today, -1)},Fine,-1.00\nnot a date,Broken,-2.00\n`,
      columns: COLUMNS,
    });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/line 3/);
    expect(await rawTransactions(h, budget, account)).toEqual(before);
  });

  it('reads a local file by path where the server runs for its user, and refuses a folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-statement-'));
    const file = join(dir, 'statement.csv');
    writeFileSync(file, csv([{ date: addDays(today, -1), payee: 'Path Shop', amount: -4_560 }]));
    const preview = ok(await h.call('import_statement', { account_id: 'Everyday Checking', path: file, columns: COLUMNS }));
    expect(preview.rows[0]).toMatchObject({ payee: 'Path Shop', amount: -4_560 });
    const folder = await h.call('import_statement', { account_id: 'Everyday Checking', path: dir, columns: COLUMNS });
    expect(folder.content[0].text).toMatch(/is a folder/);
  });

  it('refuses path where the server is not local (the default of a configuration, hosted, HTTP beyond loopback)', async () => {
    const remote = await mcpHarness({ sandbox: { seed: 'import-statement' } });
    try {
      const res = await remote.call('import_statement', { account_id: 'Everyday Checking', path: '/etc/hosts' });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/path is not taken by this server.*content instead/);
    } finally {
      await remote.close();
    }
    expect(serverOptions({}, {}).config.localFiles).toBe(false);
    expect(serverOptions({}, {}, true).config.localFiles).toBe(true);
  });
});
