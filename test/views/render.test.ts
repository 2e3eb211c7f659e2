// @module-tag chromium (needs Debian's Chromium: skipped without it, see test/helpers/services.ts)
/**
 * The views in a real browser (Debian's Chromium through playwright-core): each view, read from
 * the server as a host reads it, is given a real tool result from the sandbox by a host page
 * that plays the host side of the bridge with ext-apps' AppBridge. The figures of the result
 * must appear in the page (names and amounts in the budget's currency, computed from the
 * server's own answers, never written here), text must stay readable in light and dark themes,
 * nothing may be fetched, and each view is photographed (into a temp dir). Drill-downs go the
 * whole way: a click in the view → tools/call through the host → the server → rows in the view.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMilliunits } from '../../src/api/money.js';
import { ok, type McpHarness } from '../helpers/mcp.js';
import type { ShownView, ViewHost } from '../helpers/view-host.js';
import { closeViewSuite, openViewSuite } from '../helpers/view-suite.js';
import { contrast, viewCall } from '../helpers/views.js';

let h: McpHarness;
let host: ViewHost;
/** Milliunits as the demo budget writes them (its own currency format, from its settings). */
let money: (milliunits: number) => string;
let shots: string;
/** The tools/call requests the views sent through the host. */
const calls: { name: string; arguments?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  ({ h, host, money, shots } = await openViewSuite('ynab-mcp-view-shots-'));
}, 60_000);

afterAll(() => closeViewSuite({ h, host, shots }));

async function show(tool: string, input: Record<string, unknown>, theme: 'light' | 'dark' = 'light'): Promise<ShownView & { result: any }> {
  const c = await viewCall(h, tool, input);
  const shown = await host.show({
    html: c.html,
    tool: c.tool,
    input,
    result: c.result,
    theme,
    callTool: (params) => {
      // What the view asked for (App adds the protocol's own _meta, a progress token, to each request).
      calls.push({ name: params.name, arguments: params.arguments });
      return h.client.callTool(params as { name: string; arguments: Record<string, unknown> });
    },
  });
  return { ...shown, result: c.result.structuredContent };
}

const text = (v: ShownView, selector = 'body') => v.view.locator(selector).innerText();

/** Every string appears in the view's text; a missing one is named. */
async function expectShown(v: ShownView, strings: string[]): Promise<void> {
  const body = await text(v);
  const missing = [...new Set(strings)].filter((s) => !body.includes(s));
  expect(missing, 'figures or names of the result missing from the view').toEqual([]);
}

/** Photographs the view and checks the file is a PNG of some size. */
async function photograph(v: ShownView, name: string): Promise<void> {
  const path = join(shots, `${name}.png`);
  await v.screenshot(path);
  const png = readFileSync(path);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(5_000);
}

/** Text and secondary text against the page background, as the browser computed them. */
async function readable(v: ShownView, theme: 'light' | 'dark'): Promise<void> {
  const colours = await v.view.locator('html').evaluate((root: any) => {
    const css = (el: any) => root.ownerDocument.defaultView.getComputedStyle(el);
    const sub = root.ownerDocument.querySelector('.sub, .note, th');
    return { bg: css(root).backgroundColor, fg: css(root).color, sub: sub ? css(sub).color : css(root).color };
  });
  const dark = contrast(colours.bg, 'rgb(0, 0, 0)') < contrast(colours.bg, 'rgb(255, 255, 255)');
  expect(dark, `${theme} theme background ${colours.bg}`).toBe(theme === 'dark');
  expect(contrast(colours.fg, colours.bg)).toBeGreaterThanOrEqual(7);
  expect(contrast(colours.sub, colours.bg)).toBeGreaterThanOrEqual(4.5);
}

async function finish(v: ShownView): Promise<void> {
  expect(v.blocked, 'requests the view made').toEqual([]);
  expect(v.errors, 'errors in the page').toEqual([]);
  await v.page.close();
}

describe.each(['light', 'dark'] as const)('in the %s theme', (theme) => {
  it('spending_summary: a bar per group with this period and the previous, in the budget currency', async () => {
    const v = await show('spending_summary', {}, theme);
    const r = v.result;
    expect(r.rows.length).toBeGreaterThan(3);
    // Compact rows carry each figure's text (issue 43), the same the view writes in the budget's currency.
    expect(r.rows[0].net_formatted).toBe(money(r.rows[0].net));
    await expectShown(v, [
      r.budget.name,
      ...r.rows.flatMap((row: any) => [row.name, money(row.net), money(row.previous_net)]),
      r.totals.net_formatted,
      r.totals.previous_net_formatted,
    ]);
    expect(await v.view.locator('.bar.now, .bar.inflow').count()).toBe(r.rows.length);
    expect(await v.view.locator('.bar.before').count()).toBe(r.rows.length);
    await readable(v, theme);
    await photograph(v, `spending-${theme}`);
    await finish(v);
  });

  it('cash_flow: income, spending and net worth as lines, and each month in figures', async () => {
    const v = await show('cash_flow', {}, theme);
    const r = v.result;
    expect(r.months.length).toBeGreaterThan(1);
    // Compact months are names, their figures columns beside their texts (by_month), with no net:
    // the view writes the texts, and income minus spending. The current month is answered apart;
    // net worth as its change (health).
    const c = r.by_month;
    expect(c).not.toHaveProperty('net');
    const rows = [
      ...r.months.map((_: string, i: number) => ({
        income: c.income[i],
        income_formatted: c.income_formatted[i],
        spending: c.spending[i],
        spending_formatted: c.spending_formatted[i],
      })),
      r.current_month,
    ];
    await expectShown(v, [
      ...rows.flatMap((m: any) => [m.income_formatted, m.spending_formatted, money(m.income - m.spending)]),
      r.totals.income_formatted,
      r.totals.spending_formatted,
      money(r.totals.income - r.totals.spending),
      r.health.net_worth_change_formatted,
    ]);
    // One chart in compact detail: income and spending (two lines), a point per month per line.
    expect(await v.view.locator('svg.chart').count()).toBe(1);
    expect(await v.view.locator('svg.chart circle').count()).toBe(rows.length * 2);
    await readable(v, theme);
    await photograph(v, `cash-flow-${theme}`);
    await finish(v);
  });

  it('forecast: the balance ahead as a line, the first day below zero marked, each month end in figures', async () => {
    // An account that goes below zero: 100 today, 500 scheduled to go out in twenty days (past
    // needs_attention's 14-day window, so the attention view's test sees the demo as it was).
    const name = `View Forecast ${theme} ${Date.now().toString(36)}`;
    const inTwenty = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    ok(await h.call('create_account', { name, type: 'checking', balance: 100 }));
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: name,
        date: inTwenty,
        amount: -500,
        payee_name: `View Landlord ${theme}`,
        frequency: 'never',
        allow_new_payee: true,
      }),
    );
    const v = await show('forecast', { account_id: name }, theme);
    const r = v.result;
    expect(r.below_zero).toMatchObject({ date: inTwenty, account_name: name, balance: -400_000 });
    // The compact answer gives the month ends as text; the view reads the numbers from the same call in full detail.
    const ends = Object.values(r.month_end_balances_formatted) as string[];
    await expectShown(v, [name, r.balance_today_formatted, r.lowest.balance_formatted, ...ends]);
    const full = ok(await h.call('forecast', { account_id: name, detail: 'full' }));
    expect(await v.view.locator('svg.chart').count()).toBe(1);
    expect(await v.view.locator('svg.chart line.mark').count()).toBe(1);
    expect(await v.view.locator('svg.chart text.mark').textContent()).toContain(name);
    // A point for today, each day with a change, and each month end after the last day.
    const days = full.days.map((d: any) => d.date as string);
    const endsAfter = full.months.map((m: any) => (m.month as string).slice(0, 7)).filter((m: string) => `${m}-28` > (days.at(-1) ?? ''));
    expect(await v.view.locator('svg.chart circle').count()).toBe(1 + days.length + endsAfter.length);
    await readable(v, theme);
    await photograph(v, `forecast-${theme}`);
    await finish(v);
    // The demo's cash accounts, full detail: rows rather than keyed figures, marked only when below zero.
    const all = await show('forecast', { detail: 'full' }, theme);
    await expectShown(
      all,
      all.result.months.map((m: any) => m.end_formatted),
    );
    expect(await all.view.locator('svg.chart line.mark').count()).toBe(all.result.below_zero ? 1 : 0);
    await finish(all);
  });

  it('get_month: every category with assigned, activity and available, overspending marked, Ready to Assign', async () => {
    // A purchase beyond what its category holds: the month has overspending to mark whatever
    // the demo's current month holds on the day the test runs.
    const checking = ok(await h.call('list_accounts')).accounts.find((a: any) => a.type === 'checking' && !a.closed);
    const hobbies = ok(await h.call('list_categories'))
      .category_groups.flatMap((g: any) => g.categories)
      .find((c: any) => c.name === 'Hobbies');
    const made = await h.call('create_transactions', {
      transactions: [
        {
          account_id: checking.id,
          date: new Date().toISOString().slice(0, 10),
          amount_milliunits: -Math.max(0, hobbies.available) - 20_000,
          payee_name: 'Model Shop',
          category_id: hobbies.id,
        },
      ],
      allow_duplicate: true,
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const v = await show('get_month', { month: 'current' }, theme);
    const r = v.result;
    // The figures as the server formats them (detail "full" carries the formatted companions).
    const full = ok(await h.call('get_month', { month: 'current', detail: 'full' }));
    const formatted = new Map(full.month.categories.map((c: any) => [c.id, c]));
    const categories = r.month.categories as any[];
    expect(categories.length).toBeGreaterThan(10);
    await expectShown(v, [
      r.month.ready_to_assign_formatted,
      r.month.income_formatted,
      r.month.assigned_formatted,
      r.month.activity_formatted,
      ...categories.flatMap((c) => {
        const f = formatted.get(c.id) as any;
        return [c.name, f.budgeted_formatted, f.activity_formatted, f.balance_formatted];
      }),
    ]);
    const overspent = categories.filter((c) => c.available < 0);
    expect(overspent.length, 'the demo month has an overspent category').toBeGreaterThan(0);
    expect(await v.view.locator('tr.over').count()).toBe(overspent.length);
    for (const c of overspent) expect(await v.view.locator('tr.over', { hasText: c.name }).locator('.badge').innerText()).toBe('overspent');
    await readable(v, theme);
    await photograph(v, `month-${theme}`);
    await finish(v);
  });

  it('needs_attention: each kind with its count, reason and first item', async () => {
    // A card purchase beyond what its category holds: credit overspending the payment category
    // does not cover, so the card's shortfall is among the kinds shown.
    const card = ok(await h.call('list_accounts')).accounts.find((a: any) => a.type === 'creditCard' && !a.closed);
    const category = ok(await h.call('list_categories'))
      .category_groups.flatMap((g: any) => g.categories)
      .find((c: any) => c.name === 'Clothing');
    const made = await h.call('create_transactions', {
      transactions: [
        {
          account_id: card.id,
          date: new Date().toISOString().slice(0, 10),
          amount_milliunits: -Math.max(0, category.available) - 300_000,
          payee_name: 'Coat Shop',
          category_id: category.id,
        },
      ],
      allow_duplicate: true,
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const v = await show('needs_attention', {}, theme);
    const r = v.result;
    expect(r.attention.length).toBeGreaterThan(2);
    expect(r.attention.map((k: any) => k.kind)).toContain('card_payment_shortfall');
    const strings: string[] = [];
    for (const kind of r.attention) {
      strings.push(String(kind.count), ...(kind.reason ? [kind.reason] : []));
      // The overview names each kind's first item with its figure's text.
      for (const [name, text] of Object.entries(kind.first ?? {})) strings.push(name, text as string);
      for (const e of kind.examples ?? []) {
        if (e.payee_name ?? e.name) strings.push(e.payee_name ?? e.name);
        // Compact examples carry each figure with its formatted text: the view shows that text.
        for (const [k, val] of Object.entries(e))
          if (k.endsWith('_formatted') && !k.startsWith('credit_') && !(kind.kind === 'card_payment_shortfall' && k === 'balance_formatted'))
            strings.push(val as string);
        // A card owes the opposite of its (negative) balance, said without a minus.
        if (kind.kind === 'card_payment_shortfall') strings.push(`owes ${money(-e.balance)}`);
      }
    }
    await expectShown(v, strings);
    expect(await v.view.locator('body').innerText()).not.toMatch(/owes -/);
    expect(await v.view.locator('li.kind').count()).toBe(r.attention.length);
    await readable(v, theme);
    await photograph(v, `attention-${theme}`);
    await finish(v);
  });
});

describe('full detail', () => {
  it('renders the formatted figures the server wrote, ids and what full detail adds', async () => {
    const spending = await show('spending_summary', { detail: 'full' });
    const s = spending.result;
    expect(s.rows[0]).toHaveProperty('id');
    await expectShown(spending, [
      ...s.rows.flatMap((row: any) => [
        row.name,
        row.net_formatted,
        row.previous_net_formatted,
        ...(row.assigned_formatted ? [`assigned: ${row.assigned_formatted}`] : []),
      ]),
      s.totals.outflow_formatted,
      s.totals.inflow_formatted,
    ]);
    await finish(spending);

    const flow = await show('cash_flow', { detail: 'full' });
    const f = flow.result;
    await expectShown(flow, [
      ...[...f.months, f.current_month].flatMap((m: any) => [m.income_formatted, m.spending_formatted, m.net_formatted, m.net_worth_formatted]),
      f.totals.net_formatted,
    ]);
    await finish(flow);

    const attention = await show('needs_attention', { detail: 'full' });
    const strings: string[] = [];
    for (const kind of attention.result.attention) {
      for (const e of kind.examples)
        for (const [k, val] of Object.entries(e))
          if (k.endsWith('_formatted') && !k.startsWith('credit_') && !/^(balance|lowest_balance)_/.test(k)) strings.push(val as string);
    }
    await expectShown(attention, strings);
    await finish(attention);
  });
});

describe('another currency', () => {
  it('shows a euro budget in its own format, figures computed from milliunits included', async () => {
    const settings = ok(await h.call('get_budget_settings', { budget_id: 'Haushalt Berlin' }));
    const format = settings.settings.currency_format;
    expect(format.iso_code).toBe('EUR');
    const spending = await show('spending_summary', { budget_id: 'Haushalt Berlin', group_by: 'payee' });
    await expectShown(spending, [
      ...spending.result.rows.flatMap((row: any) => [row.name, formatMilliunits(row.net, format)]),
      spending.result.totals.net_formatted,
    ]);
    expect(await text(spending)).toMatch(/\d,\d\d€/);
    expect(await text(spending)).not.toContain('$');
    await finish(spending);

    const month = await show('get_month', { budget_id: 'Haushalt Berlin', month: 'current' });
    const balances = month.result.month.categories.map((c: any) => formatMilliunits(c.available ?? 0, format));
    await expectShown(month, balances);
    expect(await text(month)).not.toContain('$');
    await finish(month);
  });
});

describe('drill-down', () => {
  it('spending: a category opens its transactions for the period, through the host and the server', async () => {
    const v = await show('spending_summary', {});
    const r = v.result;
    // A compact row: the category by its name (tools take names).
    const row = r.rows.find((x: any) => !x.groups && x.count > 1);
    expect(row.id).toBeUndefined();
    calls.length = 0;
    await v.view.getByRole('button', { name: row.name, exact: true }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls).toEqual([
      {
        name: 'search_transactions',
        arguments: { budget_id: r.budget.id, spending_only: true, category_id: row.name, since_date: r.period.since, until_date: r.period.until, limit: 20 },
      },
    ]);
    // The rows the server gives for that question, shown in the view.
    const expected = ok(await h.call('search_transactions', calls[0]!.arguments));
    expect(expected.count).toBe(row.count);
    const drill = await text(v, '.drill');
    for (const t of expected.transactions) {
      expect(drill).toContain(money(t.amount));
      if (t.payee_name) expect(drill).toContain(t.payee_name);
    }
    expect(drill).toContain(`${expected.count} transactions`);
    expect(drill).toContain(`total ${expected.total_formatted}`);
    expect(expected.total_formatted).toBe(money(row.net));
    await photograph(v, 'spending-drill');
    await finish(v);
  });

  it('spending by account: an account opens only the spending its bar counts, and the list adds up to it', async () => {
    const v = await show('spending_summary', { group_by: 'account' });
    const row = v.result.rows.find((x: any) => !x.groups && x.count > 1);
    calls.length = 0;
    await v.view.getByRole('button', { name: row.name, exact: true }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls[0]!.arguments).toMatchObject({ spending_only: true, account_id: row.name });
    const listed = ok(await h.call('search_transactions', calls[0]!.arguments));
    expect(listed.count).toBe(row.count);
    expect(listed.total).toBe(row.net);
    // Without it the account's transfers and income would be listed too.
    const { spending_only: _, ...everything } = calls[0]!.arguments as Record<string, unknown>;
    expect(ok(await h.call('search_transactions', everything)).count).toBeGreaterThan(row.count);
    expect(await text(v, '.drill')).toContain(`total ${money(row.net)}`);
    await finish(v);
  });

  it('month: a category opens its transactions for the month', async () => {
    const v = await show('get_month', { month: 'current' });
    const r = v.result;
    const category = r.month.categories.find((c: any) => c.activity < 0 && c.available < 0) ?? r.month.categories.find((c: any) => c.activity < 0);
    calls.length = 0;
    await v.view.getByRole('button', { name: category.name, exact: true }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls[0]!.name).toBe('search_transactions');
    expect(calls[0]!.arguments).toMatchObject({ category_id: category.id, since_date: r.month.month });
    const expected = ok(await h.call('search_transactions', calls[0]!.arguments));
    expect(expected.count).toBeGreaterThan(0);
    const drill = await text(v, '.drill');
    for (const t of expected.transactions) expect(drill).toContain(money(t.amount));
    await finish(v);
  });

  it('cash flow: a month opens where its money went', async () => {
    const v = await show('cash_flow', {});
    const month = v.result.months.at(-2);
    calls.length = 0;
    await v.view
      .locator('table.months button')
      .nth(v.result.months.length - 2)
      .click();
    await v.view.locator('.drill table').waitFor();
    expect(calls).toEqual([{ name: 'spending_summary', arguments: { budget_id: v.result.budget.id, month, top: 8 } }]);
    const expected = ok(await h.call('spending_summary', calls[0]!.arguments));
    const drill = await text(v, '.drill');
    for (const row of expected.rows) expect(drill).toContain(money(row.net));
    await finish(v);
  });

  it('attention: "Show all" lists every unapproved transaction', async () => {
    const v = await show('needs_attention', {});
    const unapproved = v.result.attention.find((k: any) => k.kind === 'unapproved');
    expect(unapproved.count).toBeGreaterThan(Object.keys(unapproved.first).length);
    calls.length = 0;
    await v.view.getByRole('button', { name: `Show all ${unapproved.count}` }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls[0]).toEqual({ name: 'search_transactions', arguments: { budget_id: v.result.budget.id, approved: false, limit: 50 } });
    const expected = ok(await h.call('search_transactions', calls[0]!.arguments));
    // Split transactions match by their lines: as many transactions as the attention list counts.
    expect(new Set(expected.transactions.map((t: any) => t.transaction_id ?? t.id)).size).toBe(unapproved.count);
    expect(await v.view.locator('.drill tbody tr').count()).toBe(expected.transactions.length);
    const drill = await text(v, '.drill');
    for (const t of expected.transactions) expect(drill).toContain(money(t.amount));
    if (expected.transactions.some((t: any) => t.transaction_id)) expect(drill).toContain('split line');
    await finish(v);
  });

  it('attention: an overspent category (the overview first item, by name) opens its transactions this month', async () => {
    const v = await show('needs_attention', {});
    const overspent = v.result.attention.find((k: any) => k.kind === 'overspent');
    const e = { name: Object.keys(overspent.first)[0]! };
    calls.length = 0;
    await v.view.getByRole('button', { name: e.name, exact: true }).click();
    await v.view.locator('.drill table').waitFor();
    expect(calls).toEqual([
      {
        name: 'search_transactions',
        arguments: { budget_id: v.result.budget.id, category_id: e.name, since_date: `${v.result.as_of.slice(0, 7)}-01`, limit: 20 },
      },
    ]);
    const expected = ok(await h.call('search_transactions', calls[0]!.arguments));
    expect(expected.count).toBeGreaterThan(0);
    const drill = await text(v, '.drill');
    for (const t of expected.transactions) expect(drill).toContain(money(t.amount));
    await finish(v);
  });

  it('a failing call shows its error in the panel', async () => {
    const c = await viewCall(h, 'spending_summary', {});
    const r = c.result.structuredContent;
    const row = r.rows.find((x: any) => !x.groups);
    const v = await host.show({
      html: c.html,
      tool: c.tool,
      input: {},
      result: c.result,
      theme: 'light',
      // As if the category had been deleted between the summary and the click.
      callTool: async () => ({ content: [{ type: 'text', text: `category_id "${row.name}" is not a category of this budget` }], isError: true }),
    });
    await v.view.getByRole('button', { name: row.name, exact: true }).click();
    await expect.poll(() => text(v, '.drill')).toContain('is not a category of this budget');
    expect(await v.view.locator('.drill [role=alert]').count()).toBe(1);
    await finish(v);
  });
});

describe('a host that passes the result without its _meta', () => {
  it('still shows the month, its figures as the server formatted them (never in a wrong currency), and offers no drill-down', async () => {
    const c = await viewCall(h, 'get_month', { budget_id: 'Haushalt Berlin', month: 'current' });
    const { _meta: _dropped, ...bare } = c.result;
    const v = await host.show({
      html: c.html,
      tool: c.tool,
      input: c.input,
      result: bare,
      theme: 'light',
      callTool: async () => ({ content: [], isError: true }),
    });
    const categories = c.result.structuredContent.month.categories as any[];
    // Every figure of the answer comes formatted in the budget's currency: the view computes none.
    await expectShown(v, [
      ...categories.map((x) => x.name),
      // A figure that is zero is left out of a compact row: the view writes it, without a symbol.
      ...categories.map((x) => x.available_formatted ?? '0.00'),
      c.result.structuredContent.month.ready_to_assign_formatted,
    ]);
    expect(await text(v)).not.toContain('$');
    expect(await v.view.locator('button.link').count()).toBe(0);
    await finish(v);
  });
});

describe('a group that is no entity', () => {
  it('spending by payee: "No payee" is shown with its figures and is not a link (nothing a tool could open); named payees are', async () => {
    const today = new Date().toISOString().slice(0, 10);
    ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -987.65, category_id: 'Groceries', memo: 'no payee' }],
      }),
    );
    const v = await show('spending_summary', { group_by: 'payee' });
    const none = v.result.rows.find((x: any) => x.id === null);
    expect(none).toMatchObject({ id: null, name: 'No payee' });
    const named = v.result.rows.find((x: any) => !('id' in x) && !x.groups);
    expect(named).toBeDefined();
    await expectShown(v, [none.name, money(none.net)]);
    expect(await v.view.getByRole('button', { name: none.name, exact: true }).count()).toBe(0);
    expect(await v.view.getByRole('button', { name: named.name, exact: true }).count()).toBe(1);
    await finish(v);
  });
});
