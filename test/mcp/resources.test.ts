/**
 * Resources through a real MCP client against the sandbox: what resources/list and
 * resources/templates/list offer, that every budget resource is exactly the structured content of
 * the tool it mirrors (one builder), completions from names, not-found errors for unknown ids,
 * and ynab://status before and after the server connects, never showing the token.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { USER_DATA_NOTICE } from '../../src/mcp/output/untrusted.js';
import { buildServer } from '../../src/mcp/server.js';
import { NoTokenError, ServerState } from '../../src/mcp/state/state.js';
import { readAnswerText } from '../helpers/answer-text.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const TEMPLATES: Record<string, string> = {
  budget: 'ynab://budgets/{budget_id}',
  accounts: 'ynab://budgets/{budget_id}/accounts',
  account: 'ynab://budgets/{budget_id}/accounts/{account_id}',
  categories: 'ynab://budgets/{budget_id}/categories',
  category: 'ynab://budgets/{budget_id}/categories/{category_id}',
  months: 'ynab://budgets/{budget_id}/months',
  month: 'ynab://budgets/{budget_id}/months/{month}',
  payees: 'ynab://budgets/{budget_id}/payees',
  payee: 'ynab://budgets/{budget_id}/payees/{payee_id}',
  scheduled_transactions: 'ynab://budgets/{budget_id}/scheduled_transactions',
  scheduled_transaction: 'ynab://budgets/{budget_id}/scheduled_transactions/{scheduled_transaction_id}',
  rules: 'ynab://budgets/{budget_id}/rules',
  month_transactions: 'ynab://budgets/{budget_id}/months/{month}/transactions',
  alerts: 'ynab://budgets/{budget_id}/alerts',
  alerts_since: 'ynab://budgets/{budget_id}/alerts{?cursor}',
};

/** The method's skills, each SKILL.md listed after the budget's resources, in the method's order. */
const SKILL_URIS = ['weekly-ritual', 'month-close', 'ynab-four-rules'].map((name) => `skill://${name}/SKILL.md`);
const COLLECTIONS = ['', '/accounts', '/categories', '/months', '/payees', '/scheduled_transactions', '/rules', '/months/current/transactions'];

function json(result: any): any {
  expect(result.contents).toHaveLength(1);
  expect(result.contents[0].mimeType).toBe('application/json');
  return readAnswerText(result.contents[0].text).structured;
}

/** Freshness says how old the answer's data is (it may differ between two reads); the rest must be identical. */
function content(structured: any): any {
  expect(structured.freshness).toEqual({ age_seconds: expect.any(Number) });
  const { freshness: _f, ...rest } = structured;
  return rest;
}

async function readError(client: Client, uri: string): Promise<any> {
  try {
    await client.readResource({ uri });
  } catch (e) {
    return e;
  }
  throw new Error(`reading ${uri} did not fail`);
}

async function complete(h: McpHarness, template: string, name: string, value: string, context?: Record<string, string>): Promise<string[]> {
  const res = await h.client.complete({
    ref: { type: 'ref/resource', uri: template },
    argument: { name, value },
    ...(context ? { context: { arguments: context } } : {}),
  });
  return res.completion.values;
}

describe('ynab://status', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness();
  });
  afterAll(() => h.close());

  it('before any call says it is not connected, and starts nothing', async () => {
    const s = json(await h.client.readResource({ uri: 'ynab://status' }));
    expect(s.connected).toBe(false);
    expect(s.connection).toMatch(/^not connected yet/);
    expect(s).toMatchObject({ default_budget: { chosen_by: expect.stringMatching(/^last-used/) }, read_only: false, token: null, quota: null, replicas: [] });
    expect(s.toolsets).toEqual([
      'user',
      'budgets',
      'accounts',
      'categories',
      'months',
      'payees',
      'money_movements',
      'transactions',
      'scheduled',
      'insights',
      'planning',
      'changes',
      'rules',
    ]);
    expect(await h.state.started()).toBeUndefined();
    expect(h.state.tokenInfo()).toBeUndefined();
  });

  it('after a call shows quota, freshness per budget and the token source, never the token', async () => {
    const budget = ok(await h.call('get_budget')).budget;
    const text: string = ((await h.client.readResource({ uri: 'ynab://status' })).contents[0] as { text: string }).text;
    expect(text).not.toContain(h.sb.accessToken);
    const s = readAnswerText(text).structured;
    expect(s.connected).toBe(true);
    expect(s.token).toEqual({ source: 'sandbox', kind: 'personal' });
    expect(s.quota.used).toBeGreaterThanOrEqual(1);
    expect(s.quota.remaining).toBe(s.quota.limit_per_hour - s.quota.used);
    expect(s.quota.next_slot_at).toBeNull();
    expect(s.quota.next_slot).toBe('next request possible now');
    expect(s.replicas).toHaveLength(1);
    const r = s.replicas[0];
    expect(r).toMatchObject({ budget_id: budget.id, name: budget.name, next_read: 'answered from this copy' });
    expect(Date.parse(r.synced_at)).toBeLessThanOrEqual(Date.now());
    expect(r.age_seconds).toBeGreaterThanOrEqual(0);
    expect(r.knowledge).toBeGreaterThan(0);
    expect(s.data_notice).toBe(USER_DATA_NOTICE);
  });

  it('says the next read syncs first once a write changed the budget', async () => {
    const account = ok(await h.call('list_accounts')).accounts.find((a: any) => !a.closed && a.on_budget);
    ok(await h.call('create_transactions', { transactions: [{ account_id: account.id, date: '2026-01-05', amount: -1.5, payee_name: 'Status test' }] }));
    const s = json(await h.client.readResource({ uri: 'ynab://status' }));
    expect(s.replicas[0].next_read).toMatch(/^syncs first \(a write/);
    expect(s.quota.used).toBeGreaterThanOrEqual(2);
  });
});

describe('ynab://status of a read-only server', () => {
  it('says read-only and why, before connecting', async () => {
    const h = await mcpHarness({ flags: { readOnly: true, toolsets: 'accounts,transactions' } });
    try {
      const s = json(await h.client.readResource({ uri: 'ynab://status' }));
      expect(s).toMatchObject({ connected: false, read_only: true, read_only_reason: 'started with --read-only', toolsets: ['accounts', 'transactions'] });
    } finally {
      await h.close();
    }
  });
});

describe('budget resources', () => {
  let h: McpHarness;
  let budgets: any[];
  let main: any;
  let other: any;
  let accounts: any[];
  let categories: any[];
  let payees: any[];
  let scheduled: any[];
  let months: any[];

  beforeAll(async () => {
    h = await mcpHarness();
    budgets = ok(await h.call('list_budgets')).budgets;
    main = ok(await h.call('get_budget')).budget;
    other = budgets.find((b) => b.id !== main.id);
    accounts = ok(await h.call('list_accounts', { limit: 500 })).accounts;
    categories = ok(await h.call('list_categories', { limit: 500 })).category_groups.flatMap((g: any) => g.categories);
    payees = ok(await h.call('list_payees', { limit: 500 })).payees;
    scheduled = ok(await h.call('list_scheduled_transactions', { limit: 500 })).scheduled_transactions;
    months = ok(await h.call('list_months', { limit: 500 })).months.map((m: any) => m.month);
  });
  afterAll(() => h.close());

  it('lists the templates, each with a title, a description and JSON', async () => {
    const { resourceTemplates: all } = await h.client.listResourceTemplates();
    // The skills extension's own template (the method's SKILL.md files: skills.test.ts) is the SDK's.
    expect(all.filter((t) => t.name === 'io.modelcontextprotocol/skills').map((t) => t.uriTemplate)).toEqual(['skill://{+path}']);
    const resourceTemplates = all.filter((t) => t.name !== 'io.modelcontextprotocol/skills');
    expect(Object.fromEntries(resourceTemplates.map((t) => [t.name, t.uriTemplate]))).toEqual(TEMPLATES);
    for (const t of resourceTemplates) {
      expect(t.title).toMatch(/\w/);
      expect(t.description!.length).toBeGreaterThan(10);
      expect(t.mimeType).toBe('application/json');
    }
  });

  it("lists the budget list, status, every collection of every budget, and the default budget's entities by name", async () => {
    const { resources } = await h.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('ynab://budgets');
    expect(uris).toContain('ynab://status');
    expect(budgets).toHaveLength(2);
    for (const b of budgets) for (const path of COLLECTIONS) expect(uris).toContain(`ynab://budgets/${b.id}${path}`);
    const byUri = new Map(resources.map((r) => [r.uri, r]));
    for (const a of accounts) expect(byUri.get(`ynab://budgets/${main.id}/accounts/${a.id}`)?.name).toBe(a.name);
    expect(byUri.get(`ynab://budgets/${main.id}/accounts/${accounts.find((a) => a.name === 'Everyday Checking').id}`)?.title).toBe(
      'Account: Everyday Checking (checking)',
    );
    for (const c of categories) expect(byUri.get(`ynab://budgets/${main.id}/categories/${c.id}`)?.name).toBe(c.name);
    for (const p of payees) expect(byUri.get(`ynab://budgets/${main.id}/payees/${p.id}`)?.name).toBe(p.name);
    for (const s of scheduled) expect(byUri.get(`ynab://budgets/${main.id}/scheduled_transactions/${s.id}`)?.name).toContain(s.payee_name);
    for (const m of months) expect(byUri.has(`ynab://budgets/${main.id}/months/${m}`)).toBe(true);
    expect(byUri.get(`ynab://budgets/${main.id}/months/2025-05-01`)?.name).toBe('May 2025');
    // Entities are listed for the default budget only; the other budget's are reached by template.
    expect(uris.filter((u) => u.startsWith(`ynab://budgets/${other.id}/`)).length).toBe(COLLECTIONS.length - 1);
    // Besides the budget's resources, only the method's SKILL.md files (test/mcp/skills.test.ts).
    expect(resources.filter((r) => r.mimeType !== 'application/json').map((r) => r.uri)).toEqual(SKILL_URIS);
  });

  it('reads every listed resource', async () => {
    const { resources } = await h.client.listResources();
    for (const r of resources.filter((r) => !r.uri.startsWith('skill://'))) {
      const body = json(await h.client.readResource({ uri: r.uri }));
      expect(body, r.uri).toBeTypeOf('object');
      const id = r.uri.match(/\/(?:accounts|categories|payees|scheduled_transactions)\/([^/]+)$/)?.[1];
      if (id) expect((Object.values(body)[0] as any).id, r.uri).toBe(id);
    }
  });

  const cases: [string, (b: string) => string, string, (b: string) => Record<string, unknown>][] = [
    ['budget list', () => 'ynab://budgets', 'list_budgets', () => ({ limit: 500 })],
    ['budget overview', (b) => `ynab://budgets/${b}`, 'get_budget', (b) => ({ budget_id: b })],
    ['accounts', (b) => `ynab://budgets/${b}/accounts`, 'list_accounts', (b) => ({ budget_id: b, limit: 500 })],
    ['categories', (b) => `ynab://budgets/${b}/categories`, 'list_categories', (b) => ({ budget_id: b, limit: 500 })],
    ['months', (b) => `ynab://budgets/${b}/months`, 'list_months', (b) => ({ budget_id: b, limit: 500 })],
    ['current month', (b) => `ynab://budgets/${b}/months/current`, 'get_month', (b) => ({ budget_id: b, month: 'current', limit: 500 })],
    ['payees', (b) => `ynab://budgets/${b}/payees`, 'list_payees', (b) => ({ budget_id: b, limit: 500 })],
    ['scheduled transactions', (b) => `ynab://budgets/${b}/scheduled_transactions`, 'list_scheduled_transactions', (b) => ({ budget_id: b, limit: 500 })],
    ['house rules', (b) => `ynab://budgets/${b}/rules`, 'list_rules', (b) => ({ budget_id: b })],
    [
      'transactions of the current month',
      (b) => `ynab://budgets/${b}/months/current/transactions`,
      'list_month_transactions',
      (b) => ({ budget_id: b, month: 'current', limit: 500 }),
    ],
  ];

  it.each(cases)('%s: the resource is the tool\'s structured content, for both budgets and "last-used"', async (_name, uri, tool, args) => {
    for (const b of [main.id, other.id, 'last-used']) {
      const resource = json(await h.client.readResource({ uri: uri(b) }));
      const structured = ok(await h.call(tool, args(b)));
      expect(content(resource)).toEqual(content(structured));
    }
  });

  it("each kind of entity resource is the tool's structured content", async () => {
    const b = main.id;
    const pairs: [string, string, Record<string, unknown>][] = [
      [`ynab://budgets/${b}/accounts/${accounts[0].id}`, 'get_account', { budget_id: b, account_id: accounts[0].id }],
      [`ynab://budgets/${b}/categories/${categories[3].id}`, 'get_category', { budget_id: b, category_id: categories[3].id }],
      [`ynab://budgets/${b}/months/2025-05-01`, 'get_month', { budget_id: b, month: '2025-05-01', limit: 500 }],
      [`ynab://budgets/${b}/months/2025-05-01/transactions`, 'list_month_transactions', { budget_id: b, month: '2025-05-01', limit: 500 }],
      [`ynab://budgets/${b}/payees/${payees[9].id}`, 'get_payee', { budget_id: b, payee_id: payees[9].id }],
      [
        `ynab://budgets/${b}/scheduled_transactions/${scheduled[0].id}`,
        'get_scheduled_transaction',
        { budget_id: b, scheduled_transaction_id: scheduled[0].id },
      ],
    ];
    for (const [uri, tool, args] of pairs) {
      const resource = json(await h.client.readResource({ uri }));
      expect(content(resource), uri).toEqual(content(ok(await h.call(tool, args))));
    }
  });

  it("holds a whole collection (no paging at the tools' default limit), compact, with money in milliunits and formatted", async () => {
    const r = json(await h.client.readResource({ uri: `ynab://budgets/${main.id}/payees` }));
    expect(payees.length).toBeGreaterThan(50);
    expect(r).toMatchObject({ count: payees.length, returned: payees.length, has_more: false });
    const a = json(await h.client.readResource({ uri: `ynab://budgets/${other.id}/accounts` })).accounts[0];
    expect(Number.isInteger(a.balance)).toBe(true);
    expect(a.balance_formatted).toMatch(/€/);
    expect(a).not.toHaveProperty('balance_currency');
  });

  it('marks budget text as user data, as tool results do', async () => {
    for (const uri of [`ynab://budgets/${main.id}/payees`, `ynab://budgets/${main.id}/months/current/transactions`, 'ynab://budgets']) {
      expect(json(await h.client.readResource({ uri })).data_notice, uri).toBe(USER_DATA_NOTICE);
    }
  });

  it('completes account ids from part of a name, any case', async () => {
    const expected = accounts.filter((a) => a.name.toLowerCase().includes('check')).map((a) => a.id);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(new Set(await complete(h, TEMPLATES.account!, 'account_id', 'check'))).toEqual(new Set(expected));
    const everyday = accounts.find((a) => a.name === 'Everyday Checking').id;
    expect((await complete(h, TEMPLATES.account!, 'account_id', 'EVERYDAY'))[0]).toBe(everyday);
    expect(await complete(h, TEMPLATES.account!, 'account_id', everyday.slice(0, 8))).toEqual([everyday]);
    expect(await complete(h, TEMPLATES.account!, 'account_id', 'no account has this name')).toEqual([]);
    expect(new Set(await complete(h, TEMPLATES.account!, 'account_id', ''))).toEqual(new Set(accounts.map((a) => a.id)));
  });

  it('completes account ids of the budget already chosen', async () => {
    const theirs = ok(await h.call('list_accounts', { budget_id: other.id })).accounts.map((a: any) => a.id);
    expect(new Set(await complete(h, TEMPLATES.account!, 'account_id', '', { budget_id: other.id }))).toEqual(new Set(theirs));
  });

  it('completes category, payee and scheduled transaction ids from names', async () => {
    const groceries = categories.find((c) => c.name === 'Groceries').id;
    expect((await complete(h, TEMPLATES.category!, 'category_id', 'groc'))[0]).toBe(groceries);
    const venmo = payees.find((p) => p.name === 'Venmo').id;
    expect(await complete(h, TEMPLATES.payee!, 'payee_id', 'venm')).toEqual([venmo]);
    const rent = scheduled.find((s) => s.payee_name === 'Oakwood Apartments').id;
    expect(await complete(h, TEMPLATES.scheduled_transaction!, 'scheduled_transaction_id', 'oakwood')).toEqual([rent]);
  });

  it('completes months to existing months, most recent first, and "current"', async () => {
    const all = await complete(h, TEMPLATES.month!, 'month', '');
    expect(all[0]).toBe('current');
    expect(all.slice(1)).toEqual([...months].sort().reverse());
    expect(await complete(h, TEMPLATES.month_transactions!, 'month', '2025-0')).toEqual(
      months
        .filter((m) => m.startsWith('2025-0'))
        .sort()
        .reverse(),
    );
    expect(await complete(h, TEMPLATES.month!, 'month', 'may')).toEqual(
      months
        .filter((m) => m.slice(5, 7) === '05')
        .sort()
        .reverse(),
    );
    expect(await complete(h, TEMPLATES.month!, 'month', 'cur')).toEqual(['current']);
  });

  it('completes budget ids from budget names in every template', async () => {
    const berlin = budgets.find((b) => b.name === 'Haushalt Berlin').id;
    for (const template of Object.values(TEMPLATES)) expect(await complete(h, template, 'budget_id', 'berl')).toEqual([berlin]);
    expect(await complete(h, TEMPLATES.accounts!, 'budget_id', 'last')).toEqual(['last-used']);
    expect(new Set(await complete(h, TEMPLATES.budget!, 'budget_id', ''))).toEqual(new Set([...budgets.map((b) => b.id), 'last-used']));
  });

  it('an unknown id, budget or month is a not-found error with a clear message, and the server keeps serving', async () => {
    const missing = [
      [`ynab://budgets/${main.id}/accounts/00000000-0000-4000-8000-000000000000`, /account 00000000-0000-4000-8000-000000000000 was not found/],
      [`ynab://budgets/${main.id}/payees/00000000-0000-4000-8000-000000000000`, /not found/],
      [`ynab://budgets/00000000-0000-4000-8000-000000000000/accounts`, /not found/],
      [`ynab://budgets/${main.id}/months/2025-13-01`, /YYYY-MM-01/],
      [`ynab://budgets/${main.id}/months/1999-01-01`, /not found/],
      [`ynab://budgets/${main.id}/categories/not-an-id`, /category_id "not-an-id": no category has that id or name\. Searched/],
      [`ynab://budgets/No%20Such%20Budget/accounts`, /budget_id "No Such Budget": no budget has that id or name\. Give an id/],
    ] as const;
    for (const [uri, message] of missing) {
      const e = await readError(h.client, uri);
      expect(e.code, uri).toBe(-32602);
      expect(e.message, uri).toMatch(/^Resource not found: /);
      expect(e.message, uri).toMatch(message);
      expect(e.message).not.toContain(h.sb.accessToken);
      expect(e.data).toEqual({ uri });
    }
    expect((await readError(h.client, 'ynab://budgets/x/nothing-here')).code).toBe(-32602);
    expect(json(await h.client.readResource({ uri: 'ynab://budgets' })).budgets).toHaveLength(2);
  });
});

describe('a collection too large for one answer', () => {
  it('says so and how to get the rest with the tool it mirrors', async () => {
    const h = await mcpHarness({ flags: { maxResultChars: 4000 } });
    try {
      const all = ok(await h.call('list_payees', { limit: 500 })).count;
      const r = json(await h.client.readResource({ uri: 'ynab://budgets/last-used/payees' }));
      expect(r.has_more).toBe(true);
      const notice = (r.notices as string[]).find((n) => n.startsWith('This resource holds'))!;
      expect(notice).toContain(`${r.returned} of ${all}`);
      const args = JSON.parse(notice.match(/call list_payees with (\{.*\})\.$/)![1]!);
      expect(args).toEqual({ budget_id: 'last-used', cursor: r.next_cursor });
      // Following the notice, with the tool, gives exactly the rest.
      const ids: string[] = r.payees.map((p: any) => p.id);
      let page = ok(await h.call('list_payees', args));
      ids.push(...page.payees.map((p: any) => p.id));
      while (page.has_more) {
        page = ok(await h.call('list_payees', { budget_id: 'last-used', cursor: page.next_cursor }));
        ids.push(...page.payees.map((p: any) => p.id));
      }
      expect(ids).toHaveLength(all);
      expect(new Set(ids).size).toBe(all);
    } finally {
      await h.close();
    }
  });
});

describe('without a token', () => {
  let client: Client;
  let state: ServerState;
  const message = 'No YNAB token: run "ynab-mcp login" or set YNAB_ACCESS_TOKEN.';

  beforeAll(async () => {
    state = new ServerState(mcpConfig({}, {}), async () => {
      throw new NoTokenError(message);
    });
    const server = buildServer(state);
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(c);
  });
  afterAll(() => client.close());

  it('lists the budget list and status, completes nothing, and says why on stderr once', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['ynab://budgets', 'ynab://status', ...SKILL_URIS]);
      const res = await client.complete({ ref: { type: 'ref/resource', uri: TEMPLATES.account! }, argument: { name: 'account_id', value: 'check' } });
      expect(res.completion.values).toEqual([]);
      const lines = err.mock.calls.map((c) => String(c[0])).filter((l) => l.includes(message));
      expect(lines).toHaveLength(1);
    } finally {
      err.mockRestore();
    }
  });

  it('reading a budget resource fails with the reason; status says not connected', async () => {
    const e = await readError(client, 'ynab://budgets/last-used/accounts');
    expect(e.code).toBe(-32603);
    expect(e.message).toContain(message);
    expect(json(await client.readResource({ uri: 'ynab://status' })).connected).toBe(false);
  });
});
