/**
 * What a host pays for the tool definitions at the start of every conversation: the byte length
 * of the JSON `tools` array of tools/list, through a real MCP client. The 44 API tools stay
 * within 40 KB with every operation, argument and unit statement kept; the default list (a few
 * tools and call_api) within 30,000 bytes and the `core` profile within 15,000 (issue 59 item 3;
 * DEFINITION_BUDGETS in test/helpers/tools-list.ts), and with `--writes confirm` (every write to
 * YNAB then takes confirm_token; set_rule and delete_rule change this server's rules, not YNAB,
 * and are never held) and views within 32 KB and 15.6 KB. Every toolset selection can find budgets.
 * Schemas are lean (no dialect per tool, no ±2^53 bounds, no empty schemas) and portable: one
 * `type` per schema, and the MCP Inspector's portability check (`--strict`) finds nothing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import { MCP_TOOLSETS } from '../../src/mcp/tools/toolsets.js';
import { VIEWS } from '../../src/mcp/views/table.js';
import { MONEY_DOCS } from '../../src/shared/field-docs.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { INSPECTOR, skipWithoutInspector } from '../helpers/inspector.js';
import { EVERY_TOOLSET } from '../helpers/mcp.js';
import { bytes, DEFINITION_BUDGETS, listed } from '../helpers/tools-list.js';

const INSIGHTS = [
  'spending_summary',
  'search_transactions',
  'needs_attention',
  'credit_cards',
  'cash_flow',
  'upcoming',
  'review_transactions',
  'targets_summary',
];
/** The planning toolset (issue 35) outside the insight tools above; targets_summary and forecast are in core. */
const PLANNING = ['forecast', 'recurring', 'debt_payoff'];
const TASKS = [
  'create_transfer',
  'fund_targets',
  'move_money',
  'approve_transactions',
  'recategorize_transactions',
  'delete_transactions',
  'split_transaction',
  'list_recent_changes',
  'undo_change',
  'merge_payees',
  'import_statement',
  'reconcile_account',
  'apply_rules',
  'list_rules',
  'set_rule',
  'delete_rule',
  'suggest_rules',
];
/** Writes of this server's own house rules: nothing of YNAB's changes, so no mode holds them. */
const RULE_WRITES = ['set_rule', 'delete_rule'];
/** The budgets (test/helpers/tools-list.ts, also shown in the README's size table). */
const { api: API_BUDGET, all: ALL_BUDGET, core: CORE_BUDGET, allAnyMode: ALL_ANY, coreAnyMode: CORE_ANY } = DEFINITION_BUDGETS;

describe('definitions budget', () => {
  it('the default list takes at most 30,000 bytes and core at most 15,000; the 44 API tools at most 40 KB, every toolset 950 bytes a tool on average', async () => {
    const all = await listed();
    expect(bytes(all)).toBeLessThanOrEqual(ALL_BUDGET);
    const every = await listed(EVERY_TOOLSET);
    const api = every.filter((t) => !INSIGHTS.includes(t.name) && !PLANNING.includes(t.name) && !TASKS.includes(t.name));
    expect(api).toHaveLength(44);
    expect(bytes(api)).toBeLessThanOrEqual(API_BUDGET);
    expect(bytes(every) / every.length).toBeLessThanOrEqual(DEFINITION_BUDGETS.perTool);
    const core = await listed('core');
    expect(core.map((t) => t.name)).toEqual(expect.arrayContaining([...INSIGHTS, 'forecast', 'list_budgets', 'call_api']));
    expect(core.map((t) => t.name)).not.toContain('recurring');
    expect(bytes(core)).toBeLessThanOrEqual(CORE_BUDGET);
  });

  it('with --writes confirm (every write takes confirm_token) the lists stay within the same budgets', async () => {
    const all = await listed(undefined, false, false, 'confirm');
    const writes = all.filter((t) => t.annotations?.readOnlyHint === false && !RULE_WRITES.includes(t.name) && t.name !== 'call_api');
    expect(writes.every((t) => t.inputSchema.properties.confirm_token)).toBe(true);
    const every = await listed(EVERY_TOOLSET, false, false, 'confirm');
    expect(bytes(every.filter((t) => !INSIGHTS.includes(t.name) && !PLANNING.includes(t.name) && !TASKS.includes(t.name)))).toBeLessThanOrEqual(API_BUDGET);
    expect(bytes(all)).toBeLessThanOrEqual(ALL_ANY);
    expect(bytes(await listed('core', false, false, 'confirm'))).toBeLessThanOrEqual(CORE_ANY);
  });

  it('a client that shows views pays under 100 bytes per view tool for it, within the same budgets', async () => {
    for (const toolsets of [undefined, 'core']) {
      const plain = bytes(await listed(toolsets));
      const withViews = await listed(toolsets, false, true);
      const ui = bytes(withViews);
      const viewTools = withViews.filter((t: any) => t._meta?.ui).length;
      expect(viewTools).toBeGreaterThanOrEqual(4);
      expect(ui - plain).toBeGreaterThan(0);
      expect(ui - plain).toBeLessThan(viewTools * 100);
    }
    expect(bytes(await listed(undefined, false, true))).toBeLessThanOrEqual(ALL_ANY);
    expect(bytes(await listed('core', false, true))).toBeLessThanOrEqual(CORE_ANY);
  });

  it('every combination of --writes and views stays within the budgets (core with confirm and views the largest)', async () => {
    const sizes: Record<string, number> = {};
    for (const writes of ['direct', 'confirm', 'off'])
      for (const ui of [false, true]) {
        sizes[`all ${writes}${ui ? ' views' : ''}`] = bytes(await listed(undefined, false, ui, writes));
        sizes[`core ${writes}${ui ? ' views' : ''}`] = bytes(await listed('core', false, ui, writes));
      }
    for (const [name, size] of Object.entries(sizes)) expect(size, name).toBeLessThanOrEqual(name.startsWith('core') ? CORE_ANY : ALL_ANY);
  });

  it.each([...MCP_TOOLSETS, 'core'])('toolset %s lets the assistant find budgets', async (toolset) => {
    const names = (await listed(toolset)).map((t) => t.name);
    expect(names).toContain('list_budgets');
    expect((await listed(toolset, true)).map((t) => t.name)).toContain('list_budgets');
  });

  it('loses no operation, argument or unit statement', async () => {
    const tools = new Map((await listed(EVERY_TOOLSET)).map((t) => [t.name, t]));
    for (const op of OPERATIONS as readonly Operation[]) {
      const t = tools.get(op.tool.name);
      expect(t, op.id).toBeDefined();
      const props = t.inputSchema.properties;
      const expected = [...op.params, ...op.query.filter((q) => q !== 'last_knowledge_of_server')];
      if (op.scope === 'budget') expected.push('budget_id');
      for (const name of expected) expect(props, `${op.tool.name}.${name}`).toHaveProperty(name);
      // Every body field: as itself, or as a money pair, flattened from the wrapper (or in the transactions list).
      const fields = t.inputSchema.properties.transactions?.items?.properties ?? props;
      const wrapper = (op.body as any)?.shape as Record<string, any> | undefined;
      for (const member of op.bodyMembers ?? []) {
        let inner = wrapper?.[member];
        while (inner?.def?.innerType) inner = inner.def.innerType;
        if (inner?.def?.type === 'array') inner = inner.def.element;
        for (const key of Object.keys(inner?.shape ?? {})) {
          if (key in MONEY_DOCS) {
            expect(fields, `${op.tool.name}.${key}`).toHaveProperty(key);
            expect(fields[key].description, `${op.tool.name}.${key}`).toBe(MONEY_DOCS[key]);
            expect(fields[`${key}_milliunits`].description, `${op.tool.name}.${key}_milliunits`).toMatch(/milliunits/);
          } else expect(fields, `${op.tool.name}.${key}`).toHaveProperty(key);
        }
      }
    }
  });

  it('is lean: no dialect per tool, no safe-integer bounds, no empty schemas', async () => {
    const text = JSON.stringify([...(await listed()), ...(await listed(EVERY_TOOLSET))]);
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    expect(text).not.toContain('"additionalProperties":{}');
    expect(text).not.toContain('"items":{}');
    // What every answer carries (freshness, notices, paging members) is said once, in the instructions.
    expect(text).not.toMatch(/freshness|has_more/);
  });
});

/** Every `type` keyword in a schema that is an array, by path. */
function typeArrays(node: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => typeArrays(n, `${path}[${i}]`, out));
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'type' && Array.isArray(v)) out.push(`${path}: ${JSON.stringify(v)}`);
      typeArrays(v, `${path}.${k}`, out);
    }
  return out;
}

describe('schema portability', () => {
  it('one type per schema: nullable fields as anyOf branches, never a type array, in every selection', async () => {
    for (const toolsets of [undefined, 'core'])
      for (const writes of ['direct', 'confirm'])
        for (const tool of await listed(toolsets, false, true, writes)) {
          expect(typeArrays(tool.inputSchema, `${tool.name}.inputSchema`, []), writes).toEqual([]);
          expect(typeArrays(tool.outputSchema, `${tool.name}.outputSchema`, []), writes).toEqual([]);
        }
  });

  describe.skipIf(skipWithoutInspector())('the MCP Inspector CLI', () => {
    it('finds no problem at all with --strict: no errors, no warnings', () => {
      const run = spawnSync(
        INSPECTOR,
        [
          '--cli',
          '--method',
          'tools/list',
          '--strict',
          process.execPath,
          '--import',
          'tsx',
          join(REPO_ROOT, 'src', 'cli.ts'),
          'serve',
          '--sandbox',
          '--toolsets',
          'all',
        ],
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 90_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).tools.length).toBeGreaterThan(50);
      // A finding is printed as "Warning: tool …" or "Error: tool …" with its Issue; the count line only when there are some.
      expect(run.stderr).not.toMatch(/^\s*Issue: /m);
      expect(run.stderr).not.toMatch(/\d+ errors?, \d+ warnings?/);
    });
  });
});
