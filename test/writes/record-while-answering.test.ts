/**
 * A write's undo record is kept while its answer reads back what the write left (pipeline.ts,
 * steps 5 and 6): the journal and the budget's copy are apart, so the record's round trips to the
 * store no longer come before the read's. The answer still names the change, and goes only once
 * the record is kept. Here the store holds the change record back until the answer's read-back
 * (the delta request after the create, made when replicas are shared as in hosted mode) has gone
 * out: in sequence, that read would never start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/api/client/transport.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import type { SetOptions } from '../../src/storage/store.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { ok } from '../helpers/mcp.js';

/** A file store whose writes of change records wait until `release` (or a few seconds). */
class HeldChanges extends FileStateStore {
  private released!: () => void;
  readonly release = new Promise<void>((r) => (this.released = r));
  readonly order: string[] = [];
  open(why: string) {
    this.order.push(why);
    this.released();
  }
  override async set(key: string, value: Uint8Array, opts?: SetOptions) {
    if (/^changes\/.+\.change$/.test(key)) {
      await Promise.race([this.release, new Promise<void>((r) => setTimeout(() => r(this.open('waited 3 s')), 3000))]);
      this.order.push('change record kept');
    }
    return super.set(key, value, opts);
  }
}

let h: McpHarness;
let store: HeldChanges;
const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-record-'));
const requests: RequestInfo[] = [];

beforeAll(async () => {
  store = new HeldChanges(dir);
  h = await mcpHarness({
    stack: {
      store,
      shared: true,
      onRequest: (r) => {
        requests.push(r);
        if (r.method === 'GET' && r.query.last_knowledge_of_server !== undefined && requests.some((x) => x.method === 'POST')) store.open('read-back sent');
      },
    },
  });
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the answer reads back while the record is kept, names the change, and goes once it is kept', async () => {
  const accounts = ok(await h.call('list_accounts')).accounts as { id: string; type: string; closed: boolean }[];
  const account = accounts.find((a) => a.type === 'checking' && !a.closed)!.id;
  const answer = ok(
    await h.call('create_transactions', {
      transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -12.34, payee_name: 'Record test', memo: 'record test' }],
    }),
  );
  expect(store.order).toEqual(['read-back sent', 'change record kept']);
  expect(answer.change_id).toMatch(/\S/);
  const recent = ok(await h.call('list_recent_changes'));
  expect(JSON.stringify(recent)).toContain(answer.change_id);
});
