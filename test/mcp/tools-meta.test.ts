/**
 * The tool surface as clients see it (tools/list through a real MCP client): exactly the 44
 * API tools, the 6 insight tools and the 8 task tools (writes shaped as tasks, the undo journal), each with a title, a short description that says when to
 * use it and states units, annotations where they mean something, a lean output schema, strict
 * inputs without oneOf/allOf and with anyOf only for a nullable field; and a snapshot of every tool's schemas that fails on drift
 * (UPDATE_TOOLSNAPS=1 rewrites them).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { savedToolsnap } from '../helpers/toolsnaps.js';

const EXPECTED = [
  'get_user',
  'list_budgets',
  'get_budget',
  'get_budget_settings',
  'list_accounts',
  'get_account',
  'create_account',
  'list_categories',
  'get_category',
  'create_category',
  'update_category',
  'get_month_category',
  'update_month_category',
  'create_category_group',
  'update_category_group',
  'list_payees',
  'get_payee',
  'create_payee',
  'update_payee',
  'list_payee_locations',
  'get_payee_location',
  'list_payee_locations_by_payee',
  'list_months',
  'get_month',
  'list_money_movements',
  'list_money_movements_by_month',
  'list_money_movement_groups',
  'list_money_movement_groups_by_month',
  'list_transactions',
  'list_account_transactions',
  'list_category_transactions',
  'list_payee_transactions',
  'list_month_transactions',
  'get_transaction',
  'create_transactions',
  'update_transaction',
  'update_transactions',
  'delete_transaction',
  'import_transactions',
  'list_scheduled_transactions',
  'get_scheduled_transaction',
  'create_scheduled_transaction',
  'update_scheduled_transaction',
  'delete_scheduled_transaction',
  'spending_summary',
  'search_transactions',
  'needs_attention',
  'credit_cards',
  'cash_flow',
  'upcoming',
  'debt_payoff',
  'review_transactions',
  'forecast',
  'recurring',
  'targets_summary',
  'create_transfer',
  'move_money',
  'fund_targets',
  'approve_transactions',
  'recategorize_transactions',
  'delete_transactions',
  'split_transaction',
  'import_statement',
  'reconcile_account',
  'list_recent_changes',
  'undo_change',
  'merge_payees',
  'apply_rules',
  'list_rules',
  'set_rule',
  'delete_rule',
  'suggest_rules',
];

let h: McpHarness;
let tools: any[];

beforeAll(async () => {
  h = await mcpHarness();
  tools = (await h.client.listTools()).tools;
});
afterAll(() => h.close());

function walk(node: unknown, visit: (n: Record<string, unknown>, path: string) => void, path = '$'): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${path}[${i}]`));
  else if (node && typeof node === 'object') {
    visit(node as Record<string, unknown>, path);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}.${k}`);
  }
}

describe('the tool surface', () => {
  it('has exactly the 44 API tools, named as the operations, the 6 insight tools and the 8 task tools', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...EXPECTED].sort());
  });

  it.each(EXPECTED)('%s has a title, a short description of when to use it, its annotations and an output schema', (name) => {
    const t = tools.find((x) => x.name === name);
    expect(t.title).toMatch(/\w/);
    expect(t.description).toMatch(/^Use (to|for|when|only) /);
    expect(t.description.length).toBeLessThan(400);
    const read = /^(get|list)_/.test(name) || !/^(create|update|delete|import|move|approve|recategorize|split|undo|reconcile|set|apply|fund|merge)_/.test(name);
    if (read) expect(t.annotations).toEqual({ readOnlyHint: true });
    else {
      // Writes say whether they destroy and whether repeating them is harmless, where that differs
      // from the protocol's defaults (destructiveHint true, idempotentHint false); nothing else varies.
      expect(t.annotations.readOnlyHint).toBe(false);
      expect(Object.keys(t.annotations).every((k) => ['readOnlyHint', 'destructiveHint', 'idempotentHint'].includes(k))).toBe(true);
      if ('destructiveHint' in t.annotations) expect(t.annotations.destructiveHint).toBe(false);
      if ('idempotentHint' in t.annotations) expect(t.annotations.idempotentHint).toBe(true);
      expect(t.annotations.destructiveHint ?? true).toBe(!name.startsWith('create_') && name !== 'import_transactions');
    }
    expect(t.outputSchema?.type).toBe('object');
    expect(Object.keys(t.outputSchema.properties ?? {}).length).toBeGreaterThan(0);
  });

  it('states units wherever money is involved', () => {
    const moneyTools = tools.filter(
      (t) =>
        /transactions?$|accounts?$|categor|months?$|money_movements|summary|attention|flow|upcoming|debt_payoff/.test(t.name) && t.annotations.readOnlyHint,
    );
    for (const t of moneyTools)
      if (!/payee_locations|groups/.test(t.name))
        expect(t.description, t.name).toMatch(/milliunits \(1000 = 1 unit\)|milliunits; 1000 = 1 unit|in milliunits/i);
  });

  it('has strict input schemas without oneOf or allOf, and anyOf only as a nullable field: [{type: T, …}, {type: "null"}]', () => {
    const problems: string[] = [];
    let nullable = 0;
    for (const t of tools) {
      if (t.inputSchema.additionalProperties !== false) problems.push(`${t.name}: unknown arguments are not refused`);
      walk(t.inputSchema, (n, path) => {
        for (const k of ['oneOf', 'allOf']) if (k in n) problems.push(`${t.name} ${path}: ${k}`);
        if (!('anyOf' in n)) return;
        const [value, none, ...more] = n.anyOf as Record<string, unknown>[];
        const single = typeof value?.type === 'string' && value.type !== 'null' && !('description' in value);
        if (!single || JSON.stringify(none) !== '{"type":"null"}' || more.length || 'type' in n)
          problems.push(`${t.name} ${path}: anyOf ${JSON.stringify(n.anyOf)}`);
        nullable++;
      });
    }
    expect(problems).toEqual([]);
    expect(nullable).toBeGreaterThan(40);
  });

  it('takes money as a decimal or as milliunits in every write that has an amount', () => {
    const create = tools.find((t) => t.name === 'create_transactions');
    const item = create.inputSchema.properties.transactions.items.properties;
    expect(item.amount.type).toBe('number');
    expect(item.amount_milliunits.type).toBe('integer');
    expect(item.subtransactions.items.properties.amount_milliunits.type).toBe('integer');
    for (const [tool, field] of <[string, string][]>[
      ['update_month_category', 'budgeted'],
      ['create_account', 'balance'],
      ['update_category', 'goal_target'],
      ['create_scheduled_transaction', 'amount'],
    ]) {
      const props = tools.find((t) => t.name === tool).inputSchema.properties;
      expect(props[field], `${tool}.${field}`).toBeDefined();
      expect(props[`${field}_milliunits`], `${tool}.${field}_milliunits`).toBeDefined();
    }
  });

  it('makes budget_id optional everywhere', () => {
    for (const t of tools) {
      if (t.inputSchema.properties.budget_id) expect(t.inputSchema.required ?? []).not.toContain('budget_id');
    }
    expect(tools.filter((t) => t.inputSchema.properties.budget_id)).toHaveLength(70);
  });
});

describe('schema snapshots', () => {
  const dir = join(import.meta.dirname, '__toolsnaps__');
  it.each(EXPECTED)('%s matches its snapshot', (name) => {
    const t = tools.find((x) => x.name === name);
    const current = `${JSON.stringify({ name: t.name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: t.inputSchema, outputSchema: t.outputSchema }, null, 2)}\n`;
    expect(current, `tool ${name} changed; rerun with UPDATE_TOOLSNAPS=1 if intended`).toBe(savedToolsnap(join(dir, `${name}.json`), current));
  });
});
