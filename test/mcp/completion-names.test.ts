/**
 * Completions give real names, and a budget without a currency format gets plain amounts.
 *
 * A completion is an argument's value, not text the model reads: an account named with `<` and
 * `>` completes as its exact name, which resolves when given back, while the prompt that quotes
 * it and every answer keep showing it escaped (`\u003c`). A budget whose `currency_format` is
 * null (older budgets have none) is answered with plain decimal amounts, never with a `$` it
 * does not have. Through a real MCP client against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let demo: string;
let berlin: string;
beforeAll(async () => {
  h = await mcpHarness();
  const budgets = (await h.sb.get('/budgets')).body.data.budgets;
  demo = budgets.find((b: any) => b.name === 'Demo Household').id;
  berlin = budgets.find((b: any) => b.name === 'Haushalt Berlin').id;
});
afterAll(() => h.close());

describe('completions', () => {
  it('complete an account name with < and > as the real name, which resolves; what the model reads stays escaped', async () => {
    const made = await h.sb.call('POST', `/budgets/${demo}/accounts`, { account: { name: 'Tom <Cash>', type: 'cash', balance: 12_500 } });
    expect(made.status).toBe(201);
    const id = made.body.data.account.id;

    const res = await h.client.complete({
      ref: { type: 'ref/prompt', name: 'log_purchase' },
      argument: { name: 'account', value: 'tom' },
      context: { arguments: { budget_id: demo } },
    });
    expect(res.completion.values).toEqual(['Tom <Cash>']);

    const account = await h.call('get_account', { budget_id: demo, account_id: res.completion.values[0] });
    expect(ok(account).account.id).toBe(id);
    // The answer the model reads shows the name escaped, as before.
    expect(ok(account).account.name).toBe('Tom \\u003cCash\\u003e');
    expect(account.content[0].text).not.toContain('<Cash>');

    const prompt = await h.client.getPrompt({
      name: 'log_purchase',
      arguments: { description: 'coffee', account: res.completion.values[0]!, budget_id: demo },
    });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain('Tom \\u003cCash\\u003e');
    expect(text).not.toContain('<Cash>');
  });
});

describe('a budget without a currency format', () => {
  it('is answered with plain decimal amounts, never a $', async () => {
    // Older budgets have none: the API sends currency_format: null.
    h.sb.state.budgets.find((b) => b.id === berlin)!.rec.currency_format = null;
    expect((await h.sb.get(`/budgets/${berlin}/settings`)).body.data.settings.currency_format).toBeNull();

    const raw = (await h.sb.get(`/budgets/${berlin}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted);
    const accounts = ok(await h.call('list_accounts', { budget_id: berlin, detail: 'full' })).accounts;
    for (const a of accounts) {
      const r = raw.find((x: any) => x.id === a.id);
      expect(a.balance_formatted, a.name).toBe(plain(r.balance));
    }
    const answers = [
      await h.call('list_transactions', { budget_id: berlin }),
      await h.call('spending_summary', { budget_id: berlin }),
      await h.call('needs_attention', { budget_id: berlin, detail: 'full' }),
      await h.call('get_month', { budget_id: berlin, month: 'current' }),
    ];
    for (const a of answers) {
      const formatted = Object.entries(flat(ok(a))).filter(([k, v]) => k.endsWith('_formatted') && typeof v === 'string');
      expect(formatted.length).toBeGreaterThan(0);
      for (const [k, v] of formatted) expect(v, k).toMatch(/^-?\d+\.\d{2,3}$/);
    }
    const tx = ok(answers[0]);
    expect(tx.total_formatted).toBe(plain(tx.total));
  });
});

/** Milliunits as a plain decimal, from the integer (two places, three when needed). */
function plain(m: number): string {
  const abs = Math.abs(m);
  const cents =
    abs % 10 === 0
      ? `${Math.floor(abs / 1000)}.${String((abs % 1000) / 10).padStart(2, '0')}`
      : `${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}`;
  return m < 0 ? `-${cents}` : cents;
}

function flat(v: unknown, path = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (Array.isArray(v)) v.forEach((x, i) => flat(x, `${path}[${i}]`, out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) flat(x, path ? `${path}.${k}` : k, out);
  else out[path] = v;
  return out;
}
