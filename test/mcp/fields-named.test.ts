/**
 * `fields` names the fields it accepts where the model reads it, and YNAB's names that are called
 * otherwise here (issue 58 item 9): a model asking get_month or list_categories for YNAB's
 * budgeted and balance is told, in the description and in the error, they are assigned and
 * available here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactFieldNames } from '../../src/mcp/output/compact.js';
import { FIELDS_APPLY_TO } from '../../src/mcp/output/builder.js';
import { API_TOOLS } from '../../src/mcp/tools/definitions.js';
import { EVERY_TOOLSET, mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { listed } from '../helpers/tools-list.js';

let h: McpHarness;
beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

describe('fields', () => {
  it('names every field it accepts (or the tool whose list it shares), and YNAB names called otherwise here', async () => {
    const tools = new Map((await listed(EVERY_TOOLSET)).map((t) => [t.name, t]));
    let checked = 0;
    for (const def of API_TOOLS) {
      const arg = tools.get(def.name)?.inputSchema.properties.fields;
      if (!arg) continue;
      checked++;
      const ref = /^As in (\w+)\.$/.exec(arg.description ?? '');
      const text: string = ref ? tools.get(ref[1]!)!.inputSchema.properties.fields.description : arg.description;
      const kind = FIELDS_APPLY_TO[def.shape.kind]?.kind ?? def.shape.kind;
      for (const name of compactFieldNames(kind).filter((n) => n !== 'id' && n !== 'name' && !n.endsWith('_formatted')))
        expect(text, `${def.name}: ${name}`).toMatch(new RegExp(`(^|, )${name}(,|;|$)`));
    }
    expect(checked).toBe(26);
    expect(tools.get('get_month').inputSchema.properties.fields.description).toMatch(/YNAB's budgeted is assigned/);
    expect(tools.get('list_categories').inputSchema.properties.fields.description).toMatch(/YNAB's budgeted is assigned, balance is available/);
  });

  it("an error for YNAB's own names says what they are called here", async () => {
    const month = await h.call('get_month', { month: 'current', fields: ['budgeted'] });
    expect(month.isError).toBe(true);
    expect(month.content[0].text).toMatch(/YNAB's "budgeted" is "assigned" here/);
    const cats = await h.call('list_categories', { fields: ['budgeted', 'balance'] });
    expect(cats.isError).toBe(true);
    expect(cats.content[0].text).toMatch(/YNAB's "budgeted" is "assigned" here; YNAB's "balance" is "available" here/);
  });
});
