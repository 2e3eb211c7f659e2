/**
 * The default list (issue 59 item 3): a few tools listed, every v1 operation one call away through
 * call_api in any host (one that never rereads tools/list too), with the answers, checks and write
 * rules of the tool called by name; `--toolsets all` still lists one tool per operation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/operations/index.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { listed } from '../helpers/tools-list.js';
import { savedToolsnap } from '../helpers/toolsnaps.js';

let h: McpHarness;
beforeAll(async () => {
  h = await mcpHarness({ flags: { toolsets: undefined } });
});
afterAll(() => h.close());

/** What an answer says, without how fresh it is (which differs between two calls). */
const same = (r: any) => JSON.stringify({ ...r.structuredContent, freshness: undefined });

describe('call_api', () => {
  it('is listed by default beside a few tools, and not with --toolsets all, which lists every operation', async () => {
    const names = (await listed()).map((t) => t.name);
    expect(names).toContain('call_api');
    expect(names).not.toContain('list_payees');
    const all = (await listed('all')).map((t) => t.name);
    expect(all).not.toContain('call_api');
    for (const op of OPERATIONS) expect(all).toContain(op.tool.name);
    expect((await listed('core')).map((t) => t.name)).toContain('call_api');
  });

  it('names all 44 operations in its description, and describes each (its argument schema as --toolsets all lists it)', async () => {
    const tool = (await listed()).find((t) => t.name === 'call_api');
    const all = new Map((await listed('all')).map((t) => [t.name, t]));
    expect(OPERATIONS).toHaveLength(44);
    for (const op of OPERATIONS) {
      expect(tool.description).toMatch(new RegExp(`(^|[ ;])${op.tool.name}([ ;.]|$)`));
      const d = ok(await h.call('call_api', { operation: op.tool.name, describe: true }));
      expect(d.inputSchema, op.tool.name).toEqual(all.get(op.tool.name).inputSchema);
      expect(d.description).toBe(all.get(op.tool.name).description);
    }
  });

  it('answers each of the 44 operations as the tool called by name does, arguments checked the same way', async () => {
    const budgets = ok(await h.call('list_budgets')).budgets;
    const accounts = ok(await h.call('list_accounts')).accounts;
    const ids: Record<string, unknown> = { budget_id: budgets[0].id, account_id: accounts[0].id };
    for (const op of OPERATIONS) {
      const name = op.tool.name;
      // Reads with the ids they take where known; writes with no arguments, refused by the same check.
      const args = op.access === 'read' ? Object.fromEntries(Object.entries(ids).filter(([k]) => k !== 'budget_id')) : {};
      const picked = op.access === 'read' ? Object.fromEntries(Object.entries(args).filter(([k]) => (op.params as readonly string[]).includes(k))) : args;
      const direct = await h.call(name, picked);
      const through = await h.call('call_api', { operation: name, args: picked });
      expect(!!through.isError, name).toBe(!!direct.isError);
      if (direct.isError) expect(through.content[0].text, name).toContain(direct.content[0].text);
      // A write that needs no arguments (import_transactions) changes what the second call finds: reads are compared.
      else if (op.access === 'read') expect(same(through), name).toBe(same(direct));
    }
  });

  it('refuses an unknown operation by naming the ones it runs, and bad arguments as the tool does, saying how to see them', async () => {
    const unknown = await h.call('call_api', { operation: 'list_acounts' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(/not a tool of this server; give one of: .*list_accounts/);
    const bad = await h.call('call_api', { operation: 'get_account', args: { account_id: 5 } });
    const direct = await h.call('get_account', { account_id: 5 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain(direct.content[0].text);
    expect(bad.content[0].text).toMatch(/describe: true gives its arguments/);
  });

  it('writes through the one write pipeline: a create lands once, and the next identical one is held as a duplicate', async () => {
    const accounts = ok(await h.call('list_accounts')).accounts;
    const open = accounts.find((a: any) => !a.closed && a.on_budget);
    const tx = { account_id: open.id, date: '2026-11-02', amount: -12.34, payee_name: 'Call Api Test Cafe', memo: 'call_api' };
    const made = ok(await h.call('call_api', { operation: 'create_transactions', args: { transactions: [tx] } }));
    expect(JSON.stringify(made)).toContain('Call Api Test Cafe');
    const raw = await h.sb.get(`/budgets/${ok(await h.call('list_budgets')).budgets[0].id}/transactions?since_date=2026-11-01`);
    expect(raw.body.data.transactions.filter((t: any) => t.memo === 'call_api')).toHaveLength(1);
    const again = await h.call('call_api', { operation: 'create_transactions', args: { transactions: [tx] } });
    const direct = await h.call('create_transactions', { transactions: [tx] });
    expect(JSON.stringify(again.structuredContent ?? again.content)).toMatch(/duplicate/i);
    expect(!!again.isError).toBe(!!direct.isError);
  });
});

describe('call_api under the read-only and confirm rules', () => {
  it('refuses a write on a read-only server as the tool called by name is refused', async () => {
    const r = await mcpHarness({ flags: { toolsets: undefined, readOnly: true } });
    try {
      expect((await r.client.listTools()).tools.map((t) => t.name)).toContain('call_api');
      const through = await r.call('call_api', { operation: 'create_payee', args: { name: 'X' } });
      const direct = await r.call('create_payee', { name: 'X' });
      expect(through.isError).toBe(true);
      expect(through.content[0].text).toBe(direct.content[0].text);
      expect(ok(await r.call('call_api', { operation: 'list_payees' })).payees.length).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  });

  it('holds a write for confirmation under --writes confirm, and applies it with the token', async () => {
    const c = await mcpHarness({ flags: { toolsets: undefined, writes: 'confirm' } });
    try {
      const preview = ok(await c.call('call_api', { operation: 'create_payee', args: { name: 'Held Payee' } }));
      expect(preview.preview).toBeTruthy();
      const budget = ok(await c.call('list_budgets')).budgets[0].id;
      const payees = async () => JSON.stringify((await c.sb.get(`/budgets/${budget}/payees`)).body.data.payees.map((p: any) => p.name));
      expect(await payees()).not.toContain('Held Payee');
      ok(await c.call('call_api', { operation: 'create_payee', args: { name: 'Held Payee', confirm_token: preview.confirm_token } }));
      expect(await payees()).toContain('Held Payee');
    } finally {
      await c.close();
    }
  });
});

describe('schema snapshot', () => {
  it('call_api matches its snapshot', async () => {
    const t = (await listed()).find((x) => x.name === 'call_api');
    const current = `${JSON.stringify({ name: t.name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: t.inputSchema, outputSchema: t.outputSchema }, null, 2)}\n`;
    expect(current, 'call_api changed; rerun with UPDATE_TOOLSNAPS=1 if intended').toBe(
      savedToolsnap(join(import.meta.dirname, '__toolsnaps__', 'call_api.json'), current),
    );
  });
});
