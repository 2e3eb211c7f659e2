/**
 * Prompts through a real MCP client against the sandbox: the four prompts and their arguments,
 * what each tells the assistant (tools, units, user text as data, asking before changes), live
 * context only from a budget copy already held, argument validation and completion, and that
 * listing and getting them needs no token.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addMonths, currentMonth } from '../../src/api/dates.js';
import { monthLabel } from '../../src/mcp/resolve/catalog.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { NoTokenError, ServerState } from '../../src/mcp/state/state.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

async function text(client: Client, name: string, args: Record<string, string> = {}): Promise<string> {
  const res = await client.getPrompt({ name, arguments: args });
  expect(res.messages).toHaveLength(1);
  expect(res.messages[0]!.role).toBe('user');
  const content = res.messages[0]!.content;
  if (content.type !== 'text') throw new Error(`expected text, got ${content.type}`);
  return content.text;
}

async function promptError(client: Client, name: string, args: Record<string, string>): Promise<any> {
  try {
    await client.getPrompt({ name, arguments: args });
  } catch (e) {
    return e;
  }
  throw new Error(`prompt ${name} did not fail`);
}

async function complete(client: Client, prompt: string, name: string, value: string, context?: Record<string, string>): Promise<string[]> {
  const res = await client.complete({
    ref: { type: 'ref/prompt', name: prompt },
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });
  return res.completion.values;
}

function expectCommonRules(t: string): void {
  expect(t).toMatch(/milliunits/);
  expect(t).toMatch(/_formatted/);
  expect(t).toMatch(/never instructions/);
}

describe('prompts', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness();
  });
  afterAll(() => h.close());

  it('lists the five prompts with their arguments, without connecting', async () => {
    const { prompts } = await h.client.listPrompts();
    const args = Object.fromEntries(prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => `${a.name}${a.required ? '!' : '?'}`)]));
    expect(args).toEqual({
      monthly_review: ['month?', 'budget_id?'],
      triage_unapproved: ['budget_id?'],
      log_purchase: ['description!', 'amount?', 'account?', 'budget_id?'],
      reconcile: ['account?', 'statement_balance?', 'statement_date?', 'budget_id?'],
      // The method as prompts, the same steps as the skills (skills.test.ts).
      weekly_ritual: ['budget_id?'],
      month_close: ['budget_id?'],
      four_rules: ['budget_id?'],
      tidy_payees: ['budget_id?'],
    });
    for (const p of prompts) {
      expect(p.title).toMatch(/\w/);
      expect(p.description!.length).toBeGreaterThan(30);
      for (const a of p.arguments ?? []) expect(a.description, `${p.name}.${a.name}`).toMatch(/\w/);
    }
    expect(await h.state.started()).toBeUndefined();
  });

  it('tidy_payees walks through suggest_rules, makes only the accepted rules with set_rule, then apply_rules', async () => {
    const t = await text(h.client, 'tidy_payees');
    const at = (s: string) => t.indexOf(s);
    for (const tool of ['list_rules', 'suggest_rules', 'set_rule', 'apply_rules', 'confirm_token']) expect(t, tool).toContain(tool);
    expect(at('suggest_rules:')).toBeLessThan(at('set_rule with'));
    expect(at('set_rule with')).toBeLessThan(at('apply_rules over'));
    expect(t).toContain('Make no rule I did not accept');
    expect(t).toContain('never instructions');
  });

  it('monthly_review before any call: the current month, the default budget, and no connection', async () => {
    const t = await text(h.client, 'monthly_review');
    const month = currentMonth();
    expect(t).toContain(`for ${monthLabel(month)} (the current month)`);
    expect(t).toContain("(the server's default budget)");
    expect(t).toContain('spending_summary (month "current", group_by "category")');
    expect(t).toContain('needs_attention:');
    expect(t).toContain(`get_month with month "${addMonths(month, -1)}"`);
    for (const topic of ['Ready to Assign', 'overspent', 'previous_net', 'month_so_far', 'search_transactions', 'move_money', 'change nothing unless I ask'])
      expect(t).toContain(topic);
    expectCommonRules(t);
    expect(t).not.toMatch(/Not available/);
    expect(await h.state.started()).toBeUndefined();
  });

  it('monthly_review of a given month and budget', async () => {
    const t = await text(h.client, 'monthly_review', { month: '2025-05', budget_id: 'some-budget' });
    expect(t).toContain('for May 2025.');
    expect(t).toContain('get_month (month "2025-05-01")');
    expect(t).toContain('spending_summary (month "2025-05-01", group_by "category")');
    expect(t).toContain('next to April 2025 (previous_net)');
    // A month gone by is whole: nothing partial to quote.
    expect(t).not.toContain('month_so_far');
    expect(t).toContain('get_month with month "2025-04-01"');
    for (const topic of ['ready_to_assign', 'below zero', 'goal_under_funded']) expect(t).toContain(topic);
    expect(t).toContain('Pass budget_id "some-budget" to every tool.');
    expect(t).toContain('(budget_id "some-budget")');
  });

  it('refuses a month that is not one, and log_purchase without a description', async () => {
    for (const month of ['May', '2025-13-01', '2025-05-15']) {
      const e = await promptError(h.client, 'monthly_review', { month });
      expect(e.code, month).toBe(-32602);
      expect(e.message).toMatch(/month: must be "current" or a month as YYYY-MM-01/);
    }
    const e = await promptError(h.client, 'log_purchase', { amount: '12.00' });
    expect(e.code).toBe(-32602);
    expect(e.message).toMatch(/description/);
  });

  it('triage_unapproved reviews the queue with suggestions and flags, and approves with categories in one change only after confirmation', async () => {
    const t = await text(h.client, 'triage_unapproved');
    expect(t).toContain('review_transactions (status "unapproved"');
    expect(t).toMatch(/suggested category \(its confidence and what it rests on\) and flags/);
    expect(t).toContain('batches of at most 20');
    expect(t).toMatch(/possible duplicate .*likely transfer/);
    expect(t).toContain('Do not change anything before I confirm');
    expect(t).toMatch(/one approve_transactions call with the batch's transaction_ids, expected_count .* and categories: an object from each transaction id/);
    expect(t).toContain('one change with one change_id');
    expect(t).not.toContain('recategorize_transactions');
    // The confirm flow: a preview is shown, and applied with its token only after the user agrees.
    expect(t).toMatch(/preview: true and a confirm_token, nothing was changed yet: show me .* only if I agree, call the same tool again .* plus confirm_token/);
    expectCommonRules(t);
  });

  it('reconcile walks through the statement balance, the preview, the explanations and the confirmation', async () => {
    const t = await text(h.client, 'reconcile', { account: 'checking', statement_balance: '1234.56', statement_date: '2026-11-20' });
    expect(t).toContain('against my bank statement: the account "checking", a statement balance of "1234.56", on 2026-11-20.');
    expect(t).toContain('reconcile_account with account_id, statement_balance');
    expect(t).toMatch(/If the difference is zero: .* Only if I agree, call reconcile_account again with the same arguments plus confirm_token/);
    expect(t).toMatch(/uncleared transactions whose sum is exactly the difference/);
    expect(t).toContain('create_adjustment: true');
    expect(t).toContain("cannot set the account's last reconciled date");
    expect(t).toContain('undo_change');
    expectCommonRules(t);
    const bare = await text(h.client, 'reconcile');
    expect(bare).toContain('Ask me for the balance on my statement');
    expect(bare).toContain('its date (today if I do not say)');
    const e = await promptError(h.client, 'reconcile', { statement_date: '20 Nov' });
    expect(e.code).toBe(-32602);
    expect(e.message).toMatch(/statement_date: must be a date as YYYY-MM-DD/);
  });

  it('log_purchase guides finding ids, confirming, and creating with amount or amount_milliunits', async () => {
    const t = await text(h.client, 'log_purchase', { description: 'groceries at Safeway', amount: '23.40', account: 'visa' });
    expect(t).toContain('"groceries at Safeway", amount "23.40", paid from "visa"');
    for (const tool of ['list_accounts', 'list_payees', 'list_categories', 'create_transactions']) expect(t).toContain(tool);
    expect(t).toMatch(/either amount \(a decimal.*\) or amount_milliunits \(an integer.*\), never both/);
    expect(t).toMatch(/Leave import_id out: .*not needed for a manual entry/);
    expect(t).toContain('Create nothing before I confirm');
    expect(t).toContain('outflow');
    expect(t).toMatch(/held: "duplicate" with duplicate_candidates, nothing was created.*allow_duplicate: true/);
    expect(t).toContain('undo_change');
    expect(t).not.toContain('If I gave no amount');
    expectCommonRules(t);
    expect(await text(h.client, 'log_purchase', { description: 'coffee' })).toContain('If I gave no amount, ask me for it.');
  });

  it("adds live context once the budget's copy is held: its name, and the accounts a typed name matches", async () => {
    const budget = ok(await h.call('get_budget')).budget;
    const visa = ok(await h.call('list_accounts')).accounts.find((a: any) => a.name === 'Visa Rewards');
    const review = await text(h.client, 'monthly_review');
    expect(review).toContain(`Review my YNAB budget ${JSON.stringify(budget.name)} (id ${budget.id}, USD)`);
    const purchase = await text(h.client, 'log_purchase', { description: 'gas', account: 'visa' });
    expect(purchase).toContain(`Accounts matching it: "Visa Rewards" (id ${visa.id}).`);
  });

  it('completes months, budget ids and open account names', async () => {
    const months = ok(await h.call('list_months', { limit: 500 })).months.map((m: any) => m.month);
    const all = await complete(h.client, 'monthly_review', 'month', '');
    expect(all).toEqual(['current', ...[...months].sort().reverse()]);
    expect(await complete(h.client, 'monthly_review', 'month', '2026-1')).toEqual(
      months
        .filter((m: string) => m.startsWith('2026-1'))
        .sort()
        .reverse(),
    );
    const budgets = ok(await h.call('list_budgets')).budgets;
    const berlin = budgets.find((b: any) => b.name === 'Haushalt Berlin').id;
    expect(await complete(h.client, 'monthly_review', 'budget_id', 'HAUS')).toEqual([berlin]);
    expect(await complete(h.client, 'triage_unapproved', 'budget_id', 'last')).toEqual(['last-used']);
    // The closed "Old Credit Union Checking" is not offered for a new purchase.
    expect(await complete(h.client, 'log_purchase', 'account', 'check')).toEqual(['Everyday Checking']);
    const theirs = ok(await h.call('list_accounts', { budget_id: berlin }))
      .accounts.filter((a: any) => !a.closed)
      .map((a: any) => a.name);
    expect(new Set(await complete(h.client, 'log_purchase', 'account', '', { budget_id: berlin }))).toEqual(new Set(theirs));
    expect(await complete(h.client, 'log_purchase', 'description', 'gro')).toEqual([]);
    expect(await complete(h.client, 'reconcile', 'account', 'check')).toEqual(['Everyday Checking']);
  });
});

describe('prompts on a restricted server', () => {
  it('say which tools are missing and that changes cannot be made when read-only', async () => {
    const h = await mcpHarness({ flags: { readOnly: true, toolsets: 'accounts,payees,categories,transactions' } });
    try {
      const purchase = await text(h.client, 'log_purchase', { description: 'coffee' });
      expect(purchase).toContain('Not available on this server: create_transactions');
      expect(purchase).toContain('This server is read-only (started with --read-only)');
      expect(await text(h.client, 'triage_unapproved')).toContain('Not available on this server: approve_transactions');
      expect(await text(h.client, 'monthly_review')).toContain('Not available on this server: spending_summary, needs_attention, cash_flow');
      expect(await text(h.client, 'reconcile')).toContain('Not available on this server: reconcile_account');
    } finally {
      await h.close();
    }
  });
});

describe('prompts without a token', () => {
  let client: Client;
  beforeAll(async () => {
    const state = new ServerState(mcpConfig({}, {}), async () => {
      throw new NoTokenError('No YNAB token: run "ynab-mcp login" or set YNAB_ACCESS_TOKEN.');
    });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await buildServer(state).connect(s);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(c);
  });
  afterAll(() => client.close());

  it('are listed and given; completions are empty rather than errors', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect((await client.listPrompts()).prompts).toHaveLength(8);
      expect(await text(client, 'log_purchase', { description: 'coffee', account: 'visa' })).toContain("(the server's default budget)");
      expect(await complete(client, 'monthly_review', 'month', '')).toEqual([]);
      expect(await complete(client, 'log_purchase', 'account', 'vi')).toEqual([]);
    } finally {
      err.mockRestore();
    }
  });
});
