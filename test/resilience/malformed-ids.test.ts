/**
 * Malformed arguments get a specific "Invalid arguments" tool error that names the argument,
 * never "Internal error" and never a request to some other address: an unpaired surrogate (half
 * of a character, which has no UTF-8 form and cannot be URL-encoded) in budget_id on every tool,
 * in path ids, in body ids and text; and "." / ".." as ids, which URL normalization would turn
 * into another endpoint. Through the real MCP client, in process and over the CLI's stdio.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const LONE = 'ab\uD800cd';
const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'malformed' } });
});
afterAll(() => h.close());

/** Arguments that pass the tool's input schema, so that only the malformed one is wrong. */
function minimal(tool: { name: string; inputSchema: { required?: string[]; properties?: Record<string, any> } }): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of tool.inputSchema.required ?? []) {
    const p = tool.inputSchema.properties?.[name] ?? {};
    if (Array.isArray(p.enum)) args[name] = p.enum[0];
    else if (name === 'month') args[name] = 'current';
    else if (name === 'date') args[name] = today;
    else if (name === 'type') args[name] = 'checking';
    else if (name === 'transactions') {
      args[name] = tool.name === 'create_transactions' ? [{ account_id: randomUUID(), date: today, amount: -1 }] : [{ id: randomUUID(), memo: 'm' }];
    } else if (name === 'subtransactions') args[name] = [{ amount: -1 }, { amount: -1 }];
    else if (p.pattern || name.endsWith('_id')) args[name] = randomUUID();
    else args[name] = 'x';
  }
  // Money pairs are required by the tool, not by the schema (either form may be given).
  if (tool.name === 'create_account') args.balance = 0;
  if (tool.name === 'update_month_category') args.budgeted = 0;
  return args;
}

function textOf(res: any): string {
  return res.content?.[0]?.text ?? '';
}

describe('an unpaired surrogate', () => {
  it('in budget_id gets an argument error on every tool that takes one', async () => {
    const tools = (await h.client.listTools()).tools.filter((t: any) => t.inputSchema.properties?.budget_id);
    expect(tools.length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const tool of tools) {
      const res = await h.call(tool.name, { ...minimal(tool as any), budget_id: LONE });
      const text = textOf(res);
      if (
        !res.isError ||
        !new RegExp(
          `^Input validation error: Invalid arguments for tool ${tool.name}: budget_id "ab\\\\ud800cd" contains an unpaired surrogate \\(U\\+D800\\)`,
        ).test(text)
      ) {
        wrong.push(`${tool.name}: ${text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('in a path id, a body id or body text names that argument, and nothing is written', async () => {
    const account = ok(await h.call('list_accounts')).accounts.find((a: any) => a.type === 'checking');
    const before = ok(await h.call('list_transactions', { since_date: today, limit: 1 })).count;
    const cases: [string, Record<string, unknown>, string][] = [
      ['get_transaction', { transaction_id: LONE }, 'transaction_id'],
      ['update_transaction', { transaction_id: LONE, memo: 'x' }, 'transaction_id'],
      ['delete_transaction', { transaction_id: LONE }, 'transaction_id'],
      [
        'update_transactions',
        {
          transactions: [
            { id: randomUUID(), memo: 'ok' },
            { id: LONE, memo: 'x' },
          ],
        },
        'transactions\\[1\\]\\.id',
      ],
      [
        'create_transactions',
        {
          transactions: [
            { account_id: account.id, date: today, amount: -1, memo: 'fine' },
            { account_id: account.id, date: today, amount: -1, payee_name: LONE },
          ],
        },
        'transactions\\[1\\]\\.payee_name',
      ],
      ['create_payee', { name: `Shop ${LONE}` }, 'name'],
      ['update_transaction', { transaction_id: randomUUID(), memo: `memo ${LONE}` }, 'memo'],
    ];
    for (const [tool, args, argument] of cases) {
      const res = await h.call(tool, args);
      expect(res.isError, tool).toBe(true);
      expect(textOf(res), tool).toMatch(
        new RegExp(`^Input validation error: Invalid arguments for tool ${tool}: ${argument} ".*" contains an unpaired surrogate`),
      );
    }
    // The valid first item of each batch was not written either.
    expect(ok(await h.call('list_transactions', { since_date: today, limit: 1 })).count).toBe(before);
  });

  it("arrives as such over the CLI's stdio (JSON carries it as \\ud800) and gets the same error", async () => {
    const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-malformed-'));
    const { client, transport } = await cliMcp(['--sandbox'], {
      PATH: process.env.PATH,
      HOME: root,
      YNAB_MCP_STATE_DIR: join(root, 'state'),
      YNAB_MCP_CONFIG_DIR: join(root, 'config'),
    });
    try {
      const res: any = await client.callTool({ name: 'list_accounts', arguments: { budget_id: LONE } });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/^Input validation error: Invalid arguments for tool list_accounts: budget_id "ab\\ud800cd" contains an unpaired surrogate/);
    } finally {
      await client.close();
      await transport.close();
      rmSync(root, { recursive: true, force: true });
    }
    expect(transport.stderr).not.toMatch(/URIError|URI malformed|Internal error/);
  }, 60_000);
});

describe('"." and ".." as ids', () => {
  it('are refused instead of reaching another endpoint', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['get_budget', { budget_id: '..' }, 'budget_id'],
      ['list_accounts', { budget_id: '.' }, 'budget_id'],
      ['get_transaction', { transaction_id: '..' }, 'transaction_id'],
      ['delete_transaction', { transaction_id: '..' }, 'transaction_id'],
      ['update_transaction', { transaction_id: '.', memo: 'x' }, 'transaction_id'],
    ];
    for (const [tool, args, argument] of cases) {
      const res = await h.call(tool, args);
      expect(res.isError, tool).toBe(true);
      expect(textOf(res), tool).toMatch(new RegExp(`^Input validation error: Invalid arguments for tool ${tool}: ${argument} "\\.\\.?" is not an id`));
    }
  });

  it('leave ids that only look odd alone: they reach the service and get its answer', async () => {
    const res = await h.call('get_transaction', { transaction_id: '.hidden/../x' });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/^Not found/);
  });
});
