/**
 * Confirm, then commit, through a real MCP client against the sandbox over HTTP: a held write
 * answers with a preview (the current state and the state after, amounts formatted as the API
 * formats them) and changes nothing; the same call with its confirm_token applies it. A token
 * is refused with other arguments, a second time, after 5 minutes (the clock is injected), after
 * the entities changed (naming the change), and of two concurrent confirms only one applies.
 * The `--writes` modes decide what is held and which tools take confirm_token; where the client
 * declares form elicitation, the user is asked in its dialog, and a declined dialog leaves the
 * token path. Expectations come from the API's raw answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { ConfigError } from '../../src/api/client/errors.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { PREVIEW_HINT } from '../../src/writes/pipeline/policy.js';
import { UI_CAPABILITIES } from '../helpers/views.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let clock = Date.now();
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'confirm' }, stack: { now: () => clock } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const raw = async (id: string) => (await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body.data?.transaction;
const knowledge = () => h.sb.state.budgets[0]!.knowledge;

async function purchase(memo: string, amount = -12.34): Promise<string> {
  const res = ok(
    await h.call('create_transactions', {
      allow_duplicate: true,
      transactions: [{ account_id: 'Everyday Checking', date: today, amount, payee_name: 'Confirm Shop', memo }],
    }),
  );
  return res.transaction_ids[0];
}

describe('a held write', () => {
  it('previews the current state with formatted amounts and changes nothing; the same call with its token applies it', async () => {
    const id = await purchase('to delete');
    const before = await raw(id);
    const k = knowledge();
    const preview = ok(await h.call('delete_transaction', { transaction_id: id }));
    expect(preview).toMatchObject({ preview: true, count: 1, summary: expect.stringMatching(/^Delete transaction /) });
    expect(preview.changes[0]).toMatchObject({
      action: 'delete',
      entity: 'transaction',
      id,
      current: {
        date: before.date,
        amount: before.amount,
        amount_formatted: before.amount_formatted,
        payee_name: before.payee_name,
        account_name: before.account_name,
        memo: 'to delete',
      },
      after: null,
    });
    expect(preview.message).toMatch(
      /^Nothing was changed: deletes are confirmed first\. Show the user this preview .* call delete_transaction again with the same arguments plus confirm_token/,
    );
    expect(Date.parse(preview.expires_at) - clock).toBeGreaterThan(4 * 60_000);
    // Nothing reached the service.
    expect(knowledge()).toBe(k);
    expect((await raw(id)).deleted).toBe(false);

    const done = ok(await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token }));
    expect(done.transaction).toMatchObject({ id, deleted: true });
    expect(done.change_id).toMatch(/^ch-/);
    expect((await h.sb.get(`/budgets/${budget}/transactions/${id}`)).status).toBe(404);
  });

  it('updates of more than 5 transactions are held; 5 are not', async () => {
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => purchase(`bulk ${i}`, -(20 + i))));
    const five = ok(await h.call('update_transactions', { transactions: ids.slice(0, 5).map((id) => ({ id, memo: 'five' })) }));
    expect(five.preview).toBeUndefined();
    for (const id of ids.slice(0, 5)) expect((await raw(id)).memo).toBe('five');
    const { preview, result } = await confirmed(h, 'update_transactions', { transactions: ids.map((id) => ({ id, memo: 'six' })) });
    expect(preview.count).toBe(6);
    expect(preview.changes[0].after).toEqual({ memo: 'six' });
    expect(preview.message).toMatch(/updates of more than 5 transactions are confirmed first/);
    expect(result.isError).toBeFalsy();
    for (const id of ids) expect((await raw(id)).memo).toBe('six');
  });
});

describe('a confirm_token is refused', () => {
  it('with other arguments, naming them; it still works for its own call', async () => {
    const a = await purchase('token a');
    const b = await purchase('token b');
    const preview = ok(await h.call('delete_transaction', { transaction_id: a }));
    const wrong = await h.call('delete_transaction', { transaction_id: b, confirm_token: preview.confirm_token });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0].text).toMatch(
      /^delete_transaction was not applied: confirm_token was issued for delete_transaction with other arguments \(transaction_id differs\).*Nothing was changed/,
    );
    expect((await raw(b)).deleted).toBe(false);
    const other = await h.call('update_transactions', { transactions: [{ id: a, memo: 'x' }], confirm_token: preview.confirm_token });
    // update_transactions takes a token only for a bulk update; this one is not held, so the token is refused by its own tool binding.
    expect(other.isError).toBe(true);
    expect(other.content[0].text).toMatch(/issued for delete_transaction, not update_transactions/);
    expect(ok(await h.call('delete_transaction', { transaction_id: a, confirm_token: preview.confirm_token })).transaction.deleted).toBe(true);
  });

  it('a second time', async () => {
    const id = await purchase('twice');
    const preview = ok(await h.call('delete_transaction', { transaction_id: id }));
    ok(await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token }));
    const again = await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token });
    expect(again.isError).toBe(true);
    expect(again.content[0].text).toMatch(/confirm_token was already used at .*: a token applies its change once\. Nothing was changed/);
  });

  it('after 5 minutes', async () => {
    const id = await purchase('expiring');
    const preview = ok(await h.call('delete_transaction', { transaction_id: id }));
    clock += 5 * 60_000 + 1000;
    try {
      const late = await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token });
      expect(late.isError).toBe(true);
      expect(late.content[0].text).toMatch(
        /confirm_token expired at .* \(tokens are valid for 5 minutes\)\. Nothing was changed\. Call again without confirm_token for a new preview/,
      );
      expect((await raw(id)).deleted).toBe(false);
    } finally {
      clock = Date.now();
    }
  });

  it('when the entity changed in between, naming the change; the token is spent', async () => {
    const id = await purchase('before the change');
    const preview = ok(await h.call('delete_transaction', { transaction_id: id }));
    // Someone else (the YNAB app) edits it.
    expect((await h.sb.call('PUT', `/budgets/${budget}/transactions/${id}`, { transaction: { memo: 'edited elsewhere' } })).status).toBe(200);
    const res = await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(
      /the budget changed since the preview \(transaction .*: memo is now "edited elsewhere" \(the preview showed "before the change"\)\), so confirm_token no longer applies\. Nothing was changed/,
    );
    expect((await raw(id)).deleted).toBe(false);
    const again = await h.call('delete_transaction', { transaction_id: id, confirm_token: preview.confirm_token });
    expect(again.content[0].text).toMatch(/already used/);
  });

  it('when it is not one this server issued', async () => {
    const id = await purchase('forged');
    for (const token of ['ct1.zzzzzzzz.AAAAAAAAAAAAAAAAAAAAAAAA', 'hello']) {
      const res = await h.call('delete_transaction', { transaction_id: id, confirm_token: token });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/not (one|a token) this server issue/);
    }
    expect((await raw(id)).deleted).toBe(false);
  });

  it('of two concurrent confirms with one token, exactly one applies', async () => {
    const id = await purchase('race');
    const del = ok(await h.call('delete_transaction', { transaction_id: id }));
    const [x, y] = await Promise.all([
      h.call('delete_transaction', { transaction_id: id, confirm_token: del.confirm_token }),
      h.call('delete_transaction', { transaction_id: id, confirm_token: del.confirm_token }),
    ]);
    const applied = [x, y].filter((r) => !r.isError);
    const refused = [x, y].filter((r) => r.isError);
    expect(applied).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].content[0].text).toMatch(/already used/);
    const changes = ok(await h.call('list_recent_changes', { limit: 100 })).changes.filter(
      (c: any) => c.tool === 'delete_transaction' && c.summary.includes(id),
    );
    expect(changes).toHaveLength(1);
  });
});

describe('--writes modes', () => {
  it('direct (the default): only writes that can be held take confirm_token; creates take allow_duplicate', async () => {
    const tools = new Map((await h.client.listTools()).tools.map((t) => [t.name, t]));
    const takes = [...tools.values()]
      .filter((t: any) => t.inputSchema.properties.confirm_token)
      .map((t) => t.name)
      .sort();
    expect(takes).toEqual([
      'apply_rules',
      'approve_transactions',
      // Money filed under a hidden category is held (issue 58 item 7).
      'create_scheduled_transaction',
      'create_transactions',
      'delete_scheduled_transaction',
      'delete_transaction',
      'delete_transactions',
      'fund_targets',
      'import_statement',
      'merge_payees',
      'move_money',
      'recategorize_transactions',
      'reconcile_account',
      'split_transaction',
      'undo_change',
      // A first split is held as split_transaction's (issue 57, item 10).
      'update_month_category',
      'update_scheduled_transaction',
      'update_transaction',
      'update_transactions',
    ]);
    // Each says so, and how the flow goes; the others do not.
    for (const t of tools.values()) expect((t as any).description.includes(PREVIEW_HINT), t.name).toBe(takes.includes(t.name));
    expect((tools.get('create_transactions') as any).inputSchema.properties.allow_duplicate).toBeDefined();
  });

  it('are read from --writes or YNAB_MCP_WRITES (the flag first), and a wrong value is refused', () => {
    expect(mcpConfig({}, {})).toMatchObject({ writes: 'direct', readOnly: false, elicitation: true });
    expect(mcpConfig({}, { YNAB_MCP_WRITES: 'confirm', YNAB_MCP_ELICITATION: 'off' })).toMatchObject({ writes: 'confirm', elicitation: false });
    expect(mcpConfig({ writes: 'off' }, { YNAB_MCP_WRITES: 'confirm' })).toMatchObject({ writes: 'off', readOnly: true });
    expect(() => mcpConfig({ writes: 'sometimes' }, {})).toThrow(ConfigError);
    expect(() => mcpConfig({ writes: 'sometimes' }, {})).toThrow(/--writes must be one of direct, confirm, off, got "sometimes"/);
    expect(() => mcpConfig({}, { YNAB_MCP_ELICITATION: 'maybe' })).toThrow(/YNAB_MCP_ELICITATION must be on or off/);
  });

  it('confirm holds creates and single updates too', async () => {
    const c = await mcpHarness({ sandbox: { seed: 'confirm-mode' }, flags: { writes: 'confirm' } });
    try {
      const tools = (await c.client.listTools()).tools;
      // Every write to YNAB; set_rule and delete_rule change this server's house rules only, and are never held.
      const writes = tools.filter((t: any) => t.annotations?.readOnlyHint === false && !['set_rule', 'delete_rule'].includes(t.name));
      expect(writes.every((t: any) => t.inputSchema.properties.confirm_token)).toBe(true);
      const b = c.sb.state.budgets[0]!;
      const count = () => [...b.rec.transactions.values()].filter((t) => !t.deleted).length;
      const n = count();
      const args = { transactions: [{ account_id: 'Everyday Checking', date: today, amount: -7.5, payee_name: 'Held Create', memo: 'held' }] };
      const { preview, result } = await confirmed(c, 'create_transactions', args);
      expect(preview.message).toMatch(/this server confirms every change \(--writes confirm\)/);
      expect(preview.changes[0]).toMatchObject({
        action: 'create',
        current: null,
        after: { amount_formatted: '-$7.50', memo: 'held', account_name: 'Everyday Checking' },
      });
      const id = ok(result).transaction_ids[0];
      expect(count()).toBe(n + 1);
      const update = ok(await c.call('update_transaction', { transaction_id: id, memo: 'changed' }));
      expect(update.preview).toBe(true);
      expect(update.changes[0].after).toEqual({ memo: 'changed' });
      expect((await c.sb.get(`/budgets/${b.id}/transactions/${id}`)).body.data.transaction.memo).toBe('held');
    } finally {
      await c.close();
    }
  });

  it('off is read-only: no write tools, the undo journal still readable, and says why', async () => {
    const c = await mcpHarness({ sandbox: { seed: 'off-mode' }, flags: { writes: 'off' } });
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('list_recent_changes');
      expect(names.filter((n) => /^(create|update|delete|import|move|approve|recategorize|split|undo)_/.test(n))).toEqual([]);
      expect(ok(await c.call('list_accounts')).read_only).toBe('started with --writes off');
    } finally {
      await c.close();
    }
  });
});

describe("the client's confirmation dialog", () => {
  /** A second client on the same server state, declaring form elicitation and answering with `answer`. */
  async function dialogClient(
    answer: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> } | Promise<never>,
    opts: { elicitation?: boolean; timeoutMs?: number } = {},
  ) {
    const asked: string[] = [];
    const config = {
      ...h.state.config,
      ...(opts.elicitation === false ? { elicitation: false } : {}),
      ...(opts.timeoutMs ? { elicitationTimeoutMs: opts.timeoutMs } : {}),
    };
    const server = buildServer(Object.assign(Object.create(Object.getPrototypeOf(h.state)), h.state, { config }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'dialog', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (req: any) => {
      asked.push(req.params.message);
      return answer(req.params.message);
    });
    await client.connect(a);
    return {
      client,
      asked,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it('accepted: the write is applied in the one call, after the user saw what it does', async () => {
    const id = await purchase('dialog accept');
    const d = await dialogClient(() => ({ action: 'accept', content: { confirm: true } }));
    try {
      const res: any = await d.client.callTool({ name: 'delete_transaction', arguments: { transaction_id: id } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.transaction).toMatchObject({ id, deleted: true });
      expect(d.asked).toHaveLength(1);
      expect(d.asked[0]).toMatch(/^Delete transaction .*dialog accept.*\n.*\nApply this change\?$/s);
      expect((await h.sb.get(`/budgets/${budget}/transactions/${id}`)).status).toBe(404);
    } finally {
      await d.close();
    }
  });

  it('declined or cancelled: nothing changes, and the preview keeps the token path', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const id = await purchase(`dialog ${action}`);
      const d = await dialogClient(() => ({ action }));
      try {
        const res: any = await d.client.callTool({ name: 'delete_transaction', arguments: { transaction_id: id } });
        expect(res.structuredContent).toMatchObject({ preview: true });
        expect(res.structuredContent.notices.join(' ')).toContain(`The user did not confirm in the client's dialog (${action})`);
        expect((await raw(id)).deleted).toBe(false);
        const later: any = await d.client.callTool({
          name: 'delete_transaction',
          arguments: { transaction_id: id, confirm_token: res.structuredContent.confirm_token },
        });
        expect(later.structuredContent.transaction.deleted).toBe(true);
        expect(d.asked).toHaveLength(1);
      } finally {
        await d.close();
      }
    }
  });

  it('a dialog that fails, or is never answered, ends in the preview and a working token, not an error', async () => {
    const hosts = {
      throws: () => Promise.reject(new Error('the host cannot show forms')),
      hangs: () => new Promise<never>(() => undefined),
    };
    for (const [how, answer] of Object.entries(hosts)) {
      const id = await purchase(`dialog ${how}`);
      const d = await dialogClient(answer, { timeoutMs: 400 });
      try {
        const res: any = await d.client.callTool({ name: 'delete_transaction', arguments: { transaction_id: id } });
        expect(res.isError, `${how}: ${res.content?.[0]?.text}`).toBeFalsy();
        expect(res.structuredContent).toMatchObject({ preview: true });
        expect(res.structuredContent.notices.join(' ')).toMatch(
          how === 'hangs' ? /dialog could not be shown or answered \(no answer within 0.4 s\)/ : /dialog could not be shown or answered \(.*cannot show forms/,
        );
        expect(d.asked).toHaveLength(1);
        expect((await raw(id)).deleted).toBe(false);
        const later: any = await d.client.callTool({
          name: 'delete_transaction',
          arguments: { transaction_id: id, confirm_token: res.structuredContent.confirm_token },
        });
        expect(later.structuredContent.transaction.deleted, how).toBe(true);
      } finally {
        await d.close();
      }
    }
  });

  it('not asked when the client declares no elicitation, or --elicitation is off', async () => {
    const id = await purchase('no dialog');
    expect(ok(await h.call('delete_transaction', { transaction_id: id })).preview).toBe(true);
    const d = await dialogClient(() => ({ action: 'accept', content: { confirm: true } }), { elicitation: false });
    try {
      const res: any = await d.client.callTool({ name: 'delete_transaction', arguments: { transaction_id: id } });
      expect(res.structuredContent.preview).toBe(true);
      expect(d.asked).toHaveLength(0);
      expect((await raw(id)).deleted).toBe(false);
    } finally {
      await d.close();
    }
  });
});

describe('the dialog over Streamable HTTP, both protocol eras', () => {
  it('a 2026-era client answers it itself (multi-round-trip); a 2025-era client over stateless HTTP gets the preview', async () => {
    const { served } = await import('../mcp/http-harness.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const s = await served(h.sb);
    try {
      for (const era of ['modern', 'legacy'] as const) {
        const asked: string[] = [];
        // It announces MCP Apps too: a 2025-era client then holds a session id carrying its
        // views, and the dialog is still not sent over stateless HTTP (test/views/http-sessions.test.ts).
        const client = new Client(
          { name: `dialog-${era}`, version: '1' },
          { capabilities: { elicitation: { form: {} }, ...UI_CAPABILITIES }, ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
        );
        client.setRequestHandler('elicitation/create', async (req: any) => {
          asked.push(req.params.message);
          return { action: 'accept', content: { confirm: true } };
        });
        const transport = new StreamableHTTPClientTransport(new URL(s.url));
        await client.connect(transport);
        try {
          const id = await purchase(`http ${era}`);
          const res: any = await client.callTool({ name: 'delete_transaction', arguments: { transaction_id: id } });
          expect(res.isError, res.content?.[0]?.text).toBeFalsy();
          if (era === 'modern') {
            expect(client.getProtocolEra()).toBe('modern');
            expect(asked).toHaveLength(1);
            expect(res.structuredContent.transaction).toMatchObject({ id, deleted: true });
          } else {
            // Stateless 2025-era serving cannot send the dialog: the token path answers instead.
            expect(transport.sessionId).toBeDefined();
            expect(asked).toHaveLength(0);
            expect(res.structuredContent.preview).toBe(true);
            expect((await raw(id)).deleted).toBe(false);
          }
        } finally {
          await client.close();
        }
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});
