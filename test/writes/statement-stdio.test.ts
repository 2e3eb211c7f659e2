/**
 * A real stdio server (`ynab-mcp serve --sandbox`, a child process) runs for its one local user:
 * import_statement reads a statement file by `path`, previews its rows, imports them with the
 * preview's token, and the same file again finds them all in YNAB.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { cliMcp } from '../helpers/cli-mcp.js';
import { ok } from '../helpers/mcp.js';
import { COLUMNS, csv, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
const root = mkdtempSync(join(tmpdir(), 'ynab-stdio-statement-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('import_statement over stdio', () => {
  it('reads a file by path, imports its rows, and finds them the second time', async () => {
    const rows: Row[] = [
      { date: addDays(today, -2), payee: 'Stdio Path Shop', amount: -6_543_210 },
      { date: addDays(today, -1), payee: 'Stdio Path Cafe', amount: -7_654_320 },
    ];
    const file = join(root, 'statement.csv');
    writeFileSync(file, csv(rows));
    const { client, transport } = await cliMcp(['serve', '--sandbox'], {
      PATH: process.env.PATH,
      YNAB_MCP_STATE_DIR: join(root, 'state'),
      YNAB_MCP_CONFIG_DIR: join(root, 'config'),
      YNAB_MCP_KEYCHAIN: 'off',
    });
    try {
      const call = async (args: Record<string, unknown>) => ok(await client.callTool({ name: 'import_statement', arguments: args }));
      const args = { account_id: 'Everyday Checking', path: file, columns: COLUMNS };
      const preview = await call(args);
      expect(preview.totals).toMatchObject({ rows: 2, new: 2 });
      for (const r of rows) expect(preview.rows).toContainEqual(expect.objectContaining({ payee: r.payee, date: r.date, amount: r.amount, status: 'new' }));
      const done = await call({ ...args, confirm_token: preview.confirm_token });
      expect(done.created).toBe(2);
      const again = await call(args);
      expect(again).toMatchObject({ created: 0, totals: { matched: 2, new: 0 } });
    } finally {
      await client.close();
      await transport.close();
    }
  }, 120_000);
});
