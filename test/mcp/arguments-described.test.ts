/**
 * Every argument says what the model needs to give it (issue 43 item 5), over every tool of every
 * toolset as tools/list offers it: each enum value is named where the model reads it (the
 * argument's description, the object or list holding it, or the tool's), each of them (issue 58
 * item 9); every month argument gives its form (YYYY-MM-01, "current") and
 * every date argument its (YYYY-MM-DD); every amount argument its unit (currency units or
 * milliunits); every object argument its properties; the filters say "Uncategorized" selects the
 * transactions without a category; set_rule says what its text matches.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLSETS } from '../../src/mcp/tools/toolsets.js';
import { listed } from '../helpers/tools-list.js';

const MONEY = /milliunits|currency units/i;
const AMOUNT = /(^|_)amount$|^amount|balance|budgeted|^goal_target$|extra_per_month|^(min|max)$/;

interface Arg {
  tool: string;
  path: string;
  name: string;
  node: any;
  /** The descriptions the model reads with it: its own, the holder's, the tool's. */
  own?: string;
  holder?: string;
  toolText: string;
}

/** Every argument of a tool's input schema, nested ones included (objects, lists, records). */
function args(tool: any): Arg[] {
  const out: Arg[] = [];
  const visit = (node: any, path: string, name: string, holder: string | undefined) => {
    if (!node || typeof node !== 'object') return;
    const own: string | undefined = node.description;
    if (path) out.push({ tool: tool.name, path, name, node, own, holder, toolText: tool.description });
    // The nearest description above an argument is what a model reads with it (a list's says what its lines hold).
    for (const [k, v] of Object.entries<any>(node.properties ?? {})) visit(v, path ? `${path}.${k}` : k, k, own ?? holder);
    if (node.items) visit(node.items, `${path}[]`, name, own ?? holder);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties, `${path}{}`, name, own ?? holder);
    for (const b of node.anyOf ?? []) if (b.type !== 'null') visit({ ...b, description: b.description ?? own }, `${path}|`, name, holder);
  };
  visit(tool.inputSchema, '', '', undefined);
  return out.filter((a) => !a.path.endsWith('|') || a.node.enum || a.node.properties || a.node.items);
}

const said = (a: Arg) => [a.own, a.holder, a.toolText].filter(Boolean).join(' ');
const names = (value: string, text: string) => new RegExp(`(^|[^\\w])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`).test(text);
const typeOf = (n: any): string[] => (n.anyOf ? n.anyOf.map((b: any) => b.type) : [n.type]);

let tools: any[] = [];
let all: Arg[] = [];
beforeAll(async () => {
  const byName = new Map<string, any>();
  for (const toolsets of [undefined, 'core', ...MCP_TOOLSETS]) for (const t of await listed(toolsets)) byName.set(t.name, t);
  tools = [...byName.values()];
  all = tools.flatMap(args);
});

describe('every argument says what to give it', () => {
  it('covers every tool of every toolset', () => {
    expect(tools.length).toBeGreaterThanOrEqual(71);
    expect(all.length).toBeGreaterThan(500);
  });

  it('every enum value is named where the model reads it (issue 58 item 9: no exemptions)', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const a of all) {
      if (!Array.isArray(a.node.enum)) continue;
      checked++;
      for (const v of a.node.enum) if (v !== '' && !names(String(v), said(a))) missing.push(`${a.tool}.${a.path}: ${v}`);
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('the instructions say what compact and full detail are', async () => {
    const { mcpConfig } = await import('../../src/mcp/state/config.js');
    const { buildServer } = await import('../../src/mcp/server.js');
    const { ServerState } = await import('../../src/mcp/state/state.js');
    const state = new ServerState(mcpConfig({}, {}), async () => {
      throw new Error('no token needed');
    });
    const text = (buildServer(state).server as any)._instructions as string;
    expect(text).toMatch(/Answers are compact/);
    expect(text).toMatch(/detail "full" gives every field/);
  });

  it('fund_targets names what each of its seven options does', () => {
    const option = all.find((a) => a.tool === 'fund_targets' && a.path === 'option')!;
    expect(option.node.enum).toHaveLength(7);
    for (const v of option.node.enum) expect(option.own, v).toMatch(new RegExp(`${v}[^:]*:`));
  });

  it('every month argument gives its form, YYYY-MM-01 or "current"; every date argument YYYY-MM-DD', () => {
    const missing: string[] = [];
    let months = 0;
    let dates = 0;
    for (const a of all) {
      if (!typeOf(a.node).includes('string') || a.path.endsWith('[]') || a.path.includes('columns.')) continue;
      if (a.name === 'month') {
        months++;
        if (!/YYYY-MM-01/.test(a.own ?? '') || !/"current"/.test(a.own ?? '')) missing.push(`${a.tool}.${a.path}: ${a.own}`);
      } else if (/(^|_)date$|^(from|to)$/.test(a.name)) {
        dates++;
        if (!/YYYY-MM-DD/.test(a.own ?? '')) missing.push(`${a.tool}.${a.path}: ${a.own}`);
      }
    }
    expect(missing).toEqual([]);
    expect(months).toBeGreaterThanOrEqual(8);
    expect(dates).toBeGreaterThanOrEqual(30);
  });

  it('every amount argument gives its unit: currency units or milliunits', () => {
    const missing: string[] = [];
    let amounts = 0;
    for (const a of all) {
      const numeric = typeOf(a.node).some((t) => t === 'number' || t === 'integer');
      if (!numeric || !AMOUNT.test(a.name.replace(/_milliunits$/, ''))) continue;
      amounts++;
      if (!MONEY.test(a.own ?? '') && !MONEY.test(a.holder ?? '')) missing.push(`${a.tool}.${a.path}: ${a.own ?? '(none)'}`);
    }
    expect(missing).toEqual([]);
    expect(amounts).toBeGreaterThanOrEqual(40);
  });

  it('every object argument has its properties (or the type of its values) in the schema', () => {
    const open = all.filter((a) => a.node.type === 'object' && !a.node.properties && typeof a.node.additionalProperties !== 'object');
    // call_api's args are the named tool's, which describe: true answers with (test/mcp/call-api.test.ts).
    expect(open.map((a) => `${a.tool}.${a.path}`)).toEqual(['call_api.args']);
    expect(open[0]!.own).toMatch(/describe: true gives them/);
  });

  it('the filters say that category_id "Uncategorized" selects the transactions without a category', () => {
    for (const tool of ['search_transactions', 'spending_summary', 'approve_transactions', 'recategorize_transactions']) {
      const arg = all.find((a) => a.tool === tool && a.path === 'category_id')!;
      expect(arg.own, tool).toMatch(/"Uncategorized": those without one/);
    }
    expect(tools.find((t) => t.name === 'list_category_transactions').description).toContain('"Uncategorized" too');
  });

  it("set_rule's match and set are typed, and its text says what it matches", () => {
    const schema = tools.find((t) => t.name === 'set_rule').inputSchema.properties;
    expect(Object.keys(schema.match.properties)).toEqual(['text', 'payee_id', 'account_id', 'amount', 'direction']);
    expect(Object.keys(schema.set.properties)).toEqual(['payee_name', 'category_id', 'memo', 'flag_color', 'approved']);
    expect(schema.match.properties.text.description).toMatch(/bank's text.*else the payee name/);
    expect(schema.match.properties.amount.description).toMatch(/Milliunits/);
  });

  it('limit says a page may be cut short by the size cap', () => {
    const limits = all.filter((a) => a.path === 'limit' && a.tool !== 'list_recent_changes' && a.tool !== 'suggest_rules');
    expect(limits.length).toBeGreaterThan(15);
    for (const a of limits) expect(a.own, a.tool).toMatch(/fewer past the size cap/);
  });
});
