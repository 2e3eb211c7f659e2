// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * A hosted deployment never reads a file by `path` (its files are not the user's): import_statement
 * and reconcile_account refuse it, saying to send the file's text as `content`, and nothing is
 * written; the same statement as `content` is previewed. A real hosted instance (Redis, OAuth
 * sign-in), a real statement file on the instance's own disk.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { COLUMNS, csv } from '../writes/statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
const dir = mkdtempSync(join(tmpdir(), 'ynab-hosted-statement-'));
const file = join(dir, 'statement.csv');
let d: Deployment;
let user: SignedIn;

beforeAll(async () => {
  d = await startDeployment({ instances: 1 });
  user = await signIn(d.mcpUrl, new MemoryOAuthProvider('Statement assistant', 'http://127.0.0.1:7795/callback'), { login: d.sandbox.state.users[0]!.email });
  writeFileSync(file, csv([{ date: addDays(today, -1), payee: 'Hosted Path Shop', amount: -6_540 }]));
}, 120_000);

afterAll(async () => {
  await user?.close().catch(() => undefined);
  await d?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statement files in hosted mode', () => {
  it('path is refused by both tools, nothing written; the same file as content is previewed', async () => {
    const account = ok(await user.call('list_accounts', {})).accounts.find((a: any) => a.on_budget && !a.closed);
    const writesBefore = d.upstream.requests.filter((r) => r.method !== 'GET' && r.url.startsWith('/v1')).length;
    for (const [tool, extra] of [
      ['import_statement', { columns: COLUMNS }],
      ['reconcile_account', { statement_balance_milliunits: 0 }],
    ] as const) {
      const res = await user.call(tool, { account_id: account.id, path: file, ...extra });
      expect(res.isError, tool).toBe(true);
      expect(res.content[0].text).toMatch(/path is not taken by this server.*content instead/);
    }
    expect(d.upstream.requests.filter((r) => r.method !== 'GET' && r.url.startsWith('/v1')).length).toBe(writesBefore);
    const preview = ok(
      await user.call('import_statement', {
        account_id: account.id,
        content: csv([{ date: addDays(today, -1), payee: 'Hosted Path Shop', amount: -6_540 }]),
        columns: COLUMNS,
      }),
    );
    expect(preview.rows[0]).toMatchObject({ payee: 'Hosted Path Shop', amount: -6_540, status: 'new' });
  }, 60_000);
});
