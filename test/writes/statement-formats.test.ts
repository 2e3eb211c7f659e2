/**
 * The formats beyond CSV, OFX, QIF and camt.053 through the tool, as an assistant calls it: a real
 * MCP client, the sandbox over HTTP, expectations from the API's raw transactions. An MT940 and a
 * camt.054 (format auto, and named) import their rows once, with the file's amounts and booking
 * dates; a PDF given by path is refused by what it is, and nothing is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { freeAmount, rawTransactions } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'statement-formats' }, flags: { localFiles: true } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
}, 60_000);
afterAll(() => h.close());

/** Milliunits as SWIFT writes them: no sign (the D/C mark carries it), a decimal comma. */
const swiftAmount = (m: number) => `${Math.floor(Math.abs(m) / 1000)},${String(Math.floor((Math.abs(m) % 1000) / 10)).padStart(2, '0')}`;
const yymmdd = (d: string) => d.slice(2).replace(/-/g, '');

describe('import_statement reads MT940 and camt.054', () => {
  it('imports an MT940 once: its amounts, booking dates and :86: names', async () => {
    const txns = await rawTransactions(h, budget, account, addDays(today, -30));
    const used = new Set<number>();
    const rows = [3, 4].map((ago, i) => ({
      date: addDays(today, -ago),
      amount: freeAmount(txns, addDays(today, -ago), used, -71_230 - i * 1000),
      name: `Swift Shop ${i}`,
    }));
    const total = rows.reduce((n, r) => n + r.amount, 0);
    const content = [
      ':20:STMT1',
      ':25:DE02100100109307118603',
      ':28C:1/1',
      `:60F:C${yymmdd(addDays(today, -5))}EUR1000,00`,
      ...rows.flatMap((r) => [
        `:61:${yymmdd(r.date)}${yymmdd(r.date).slice(2)}D${swiftAmount(r.amount)}NTRFNONREF`,
        `:86:166?00KARTENZAHLUNG?20Einkauf?32${r.name}`,
      ]),
      `:62F:C${yymmdd(rows[0]!.date)}EUR${swiftAmount(1_000_000 + total)}`,
      '-',
    ].join('\n');
    const { preview, result } = await confirmed(h, 'import_statement', { account_id: account, content });
    expect(preview.rows.map((r: any) => [r.status, r.date, r.amount])).toEqual(rows.map((r) => ['new', r.date, r.amount]));
    for (const r of rows) expect(JSON.stringify(preview.rows)).toContain(r.name);
    ok(result);
    const after = await rawTransactions(h, budget, account, addDays(today, -30));
    for (const r of rows) expect(after.filter((t) => t.amount === r.amount && t.date === r.date)).toHaveLength(1);
    // The same file again, named by its format: nothing new.
    const again = ok(await h.call('import_statement', { account_id: account, content, format: 'mt940' }));
    expect(again.rows.every((r: any) => r.status === 'matched')).toBe(true);
  });

  it('previews a camt.054 notification like a statement', async () => {
    const txns = await rawTransactions(h, budget, account, addDays(today, -30));
    const amount = freeAmount(txns, addDays(today, -2), new Set(), -33_330);
    const content = `<?xml version="1.0"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>N1</MsgId></GrpHdr>
<Ntfctn><Id>1</Id><Acct><Id><IBAN>DE02100100109307118603</IBAN></Id></Acct>
<Ntry><Amt Ccy="EUR">${swiftAmount(amount).replace(',', '.')}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${addDays(today, -2)}</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Notified Shop</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>
</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
    const preview = ok(await h.call('import_statement', { account_id: account, content }));
    expect(preview.rows).toEqual([expect.objectContaining({ line: 4, status: 'new', date: addDays(today, -2), amount: amount })]);
  });

  it('refuses a PDF given by path by what it is, listing what is read, and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statement-formats-'));
    try {
      const file = join(dir, 'statement.pdf');
      writeFileSync(file, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x0a, 0x00, 0x01])]));
      const before = await rawTransactions(h, budget, account);
      const res = await h.call('import_statement', { account_id: account, path: file });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(
        /line 1: found a PDF of kind PDF 1\.7, which is not supported; expected a statement file; supported: CSV, OFX, .*MT940/,
      );
      expect(await rawTransactions(h, budget, account)).toEqual(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
