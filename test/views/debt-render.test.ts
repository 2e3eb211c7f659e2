// @module-tag chromium (needs Debian's Chromium: skipped without it, see test/helpers/services.ts)
/**
 * The debt payoff view in a real browser (Debian's Chromium through playwright-core), as
 * test/views/render.test.ts shows the other views: read from the server as a host reads it, given
 * a real debt_payoff result from the sandbox by a host page that plays the host's side of the
 * bridge. The debts, rates, payoff months and interest of the result must appear in the page; the
 * chart's lines come from the same tool called by the view in full detail through the host (the
 * compact answer has no monthly balances), one per strategy, whose points say the server's own
 * figures; text stays readable in light and dark; nothing is fetched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type McpHarness } from '../helpers/mcp.js';
import type { ShownView, ViewHost } from '../helpers/view-host.js';
import { closeViewSuite, openViewSuite } from '../helpers/view-suite.js';
import { contrast, viewCall } from '../helpers/views.js';

let h: McpHarness;
let host: ViewHost;
/** Milliunits as the demo budget writes them (its own currency format, from its settings). */
let money: (milliunits: number) => string;
let shots: string;
const calls: { name: string; arguments?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  ({ h, host, money, shots } = await openViewSuite('ynab-mcp-debt-view-shots-'));
}, 60_000);

afterAll(() => closeViewSuite({ h, host, shots }));

describe.each(['light', 'dark'] as const)('debt payoff view, %s theme', (theme) => {
  it('shows each debt’s payoff and interest by strategy, and a line per strategy of what is owed', async () => {
    const input = { extra_per_month: 200 };
    const c = await viewCall(h, 'debt_payoff', input);
    const v: ShownView = await host.show({
      html: c.html,
      tool: c.tool,
      input,
      result: c.result,
      theme,
      callTool: (params) => {
        calls.push({ name: params.name, arguments: params.arguments });
        return h.client.callTool(params as { name: string; arguments: Record<string, unknown> });
      },
    });
    const r = c.result.structuredContent;
    expect(r.debts.length).toBeGreaterThanOrEqual(3);
    const body = await v.view.locator('body').innerText();
    const strings = [r.budget.name, ...r.debts.flatMap((d: any) => [d.name, d.interest_rate]), ...r.plans.map((p: any) => p.interest_formatted)];
    expect(strings.filter((s) => !body.includes(s))).toEqual([]);
    // Compact rows give each debt's interest by plan as text: the view shows it as given.
    for (const d of r.debts) for (const p of r.plans) expect(body).toContain(d.interest_formatted[p.strategy]);

    // The chart: drawn from the same call in full detail, one line per strategy, starting at the server's figures.
    const lines = v.view.locator('svg.chart polyline');
    await lines.first().waitFor();
    expect(await lines.count()).toBe(r.plans.length);
    expect(calls.at(-1)).toMatchObject({ name: 'debt_payoff', arguments: { extra_per_month: 200, detail: 'full' } });
    const full = ok(await h.call('debt_payoff', { ...input, detail: 'full' }));
    const tips = await v.view.locator('svg.chart circle title').allTextContents();
    for (const p of r.plans) expect(tips.join('\n')).toContain(money(full.schedule.owed[p.strategy][0]));

    const colours = await v.view.locator('html').evaluate((root: any) => {
      const css = (el: any) => root.ownerDocument.defaultView.getComputedStyle(el);
      return { bg: css(root).backgroundColor, fg: css(root).color, sub: css(root.ownerDocument.querySelector('.sub, .note, th')).color };
    });
    expect(contrast(colours.bg, 'rgb(0, 0, 0)') < contrast(colours.bg, 'rgb(255, 255, 255)')).toBe(theme === 'dark');
    expect(contrast(colours.fg, colours.bg)).toBeGreaterThanOrEqual(7);
    expect(contrast(colours.sub, colours.bg)).toBeGreaterThanOrEqual(4.5);

    const path = join(shots, `debt-payoff-${theme}.png`);
    await v.screenshot(path);
    expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG');
    expect(v.blocked, 'requests the view made').toEqual([]);
    expect(v.errors, 'errors in the page').toEqual([]);
    await v.page.close();
  }, 60_000);
});
