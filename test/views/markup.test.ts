// @module-tag chromium (renders a view in Debian's Chromium: skipped without it, see test/helpers/services.ts)
/**
 * Budget text with `<` and `>` in a view (issue 24, item 6): answers write them as `\u003c` and
 * `\u003e` for the model, and the view, which sets budget text as text only, shows them as typed.
 * In a real browser (Debian's Chromium) with a real result from the sandbox: the spending view
 * shows a category named `Fun <stuff> </div>` as typed, adds no element for it, and its drill-down
 * (which names the category as the result gave it, escaped) is answered by the server.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { CHROMIUM, ViewHost } from '../helpers/view-host.js';
import { UI_CAPABILITIES, viewCall } from '../helpers/views.js';

const NAME = 'Fun <stuff> </div><b>bold</b>';
const NAME_SHOWN = 'Fun \\u003cstuff\\u003e \\u003c/div\\u003e\\u003cb\\u003ebold\\u003c/b\\u003e';

let h: McpHarness;
let host: ViewHost;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`the view tests need Debian's chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);
  h = await mcpHarness({ clientCapabilities: UI_CAPABILITIES, sandbox: { seed: 'markup-view' } });
  host = await ViewHost.launch();
  const group = ok(await h.call('create_category_group', { name: 'Markup' })).category_group.id;
  const category = ok(await h.call('create_category', { name: NAME, category_group_id: group })).category.id;
  const account = ok(await h.call('list_accounts', {})).accounts.find((a: any) => a.on_budget && !a.closed).id;
  const today = new Date().toISOString().slice(0, 10);
  ok(
    await h.call('create_transactions', {
      transactions: [{ account_id: account, date: today, amount: -4321.09, category_id: category, payee_name: 'Markup shop' }],
    }),
  );
}, 60_000);

afterAll(async () => {
  await host?.close();
  await h?.close();
});

describe('budget text with < and > in a view', () => {
  it('is shown as typed, never as markup, and its drill-down is answered', async () => {
    const c = await viewCall(h, 'spending_summary', {});
    const row = c.result.structuredContent.rows.find((r: any) => r.name === NAME_SHOWN);
    expect(row, 'the category in the result, escaped').toBeDefined();
    const calls: { name: string; arguments?: Record<string, unknown> }[] = [];
    const v = await host.show({
      html: c.html,
      tool: c.tool,
      input: {},
      result: c.result,
      theme: 'light',
      callTool: (params) => {
        calls.push({ name: params.name, arguments: params.arguments });
        return h.client.callTool(params as { name: string; arguments: Record<string, unknown> });
      },
    });
    const body = await v.view.locator('body').innerText();
    expect(body).toContain(NAME);
    expect(body).not.toContain('\\u003c');
    // Set as text: the name made no element of its own.
    expect(await v.view.locator('b').count()).toBe(0);
    // The drill-down names the category as the result did (escaped); the server finds it.
    await v.view.getByRole('button', { name: NAME, exact: true }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls.map((x) => x.arguments?.category_id)).toEqual([NAME_SHOWN]);
    expect(await v.view.locator('.drill').innerText()).toContain('Markup shop');
    expect(v.errors, 'errors in the page').toEqual([]);
    expect(v.blocked, 'requests the view made').toEqual([]);
    await v.page.close();
  }, 60_000);
});
