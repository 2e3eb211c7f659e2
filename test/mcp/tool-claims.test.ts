/**
 * Each tool's claims about its answer (kept beside its definition: src/api/operations/claims.ts)
 * hold on the demo budgets (issue 43 item 5): every claim's call is made through a real MCP
 * client against the sandbox, and its answer checked. A claim is in its description's words, so
 * a description that stops holding fails here. Claims known not to hold yet are listed below with
 * the branch that makes them hold; each must still fail, so the list cannot go stale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawBudget } from '../../src/api/operations/claims.js';
import { MONEY_NOTE } from '../../src/api/operations/shared.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { listed } from '../helpers/tools-list.js';

/** `tool: says` → why it does not hold yet. */
const PENDING: Record<string, string> = {};

/** API tools whose claims need an id no name stands for (a transaction's, a scheduled transaction's). */
const BY_ID_ONLY = new Set(['get_transaction', 'get_scheduled_transaction']);

let h: McpHarness;
let raw: RawBudget;
beforeAll(async () => {
  h = await mcpHarness();
  const budget = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household');
  raw = { accounts: (await h.sb.get(`/budgets/${budget.id}/accounts`)).body.data.accounts };
});
afterAll(() => h.close());

const words = (text: string) => text.toLowerCase().match(/[a-z_]{3,}/g) ?? [];

describe('tool claims', () => {
  it('every insight tool, and every API tool that says its money is formatted, has claims; none goes into tools/list', async () => {
    for (const def of TOOL_DEFINITIONS) {
      if (def.kind === 'insight') expect(def.claims.length, def.name).toBeGreaterThan(0);
      if (def.kind === 'api' && def.description.includes(MONEY_NOTE) && !BY_ID_ONLY.has(def.name))
        expect(
          def.claims.map((c) => c.says),
          def.name,
        ).toContain(MONEY_NOTE);
      if (def.description.includes('split lines as their own rows'))
        expect(
          def.claims.map((c) => c.says),
          def.name,
        ).toContain('split lines as their own rows');
    }
    expect(JSON.stringify(await listed())).not.toMatch(/"claims"|"says"/);
  });

  it("each claim is in the words of its tool's description (or its arguments')", async () => {
    const offered = new Map((await listed()).map((t) => [t.name, t]));
    for (const def of TOOL_DEFINITIONS)
      for (const c of def.claims) {
        const description = new Set(words(`${def.description} ${JSON.stringify(offered.get(def.name)?.inputSchema ?? {})}`));
        expect(
          words(c.says).filter((w) => !description.has(w)),
          `${def.name}: ${c.says}`,
        ).toEqual([]);
      }
  });

  it('the instructions hold: a first split previews too, and money is never said to be milliunits only', async () => {
    const text = h.client.getInstructions() ?? '';
    expect(text).toContain('split_transaction (a first split too)');
    expect(text).not.toMatch(/milliunits only/);
    const budget = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household');
    const account = raw.accounts.find((a) => a.name === 'Everyday Checking')!;
    const made = await h.sb.call('POST', `/budgets/${budget.id}/transactions`, {
      transaction: { account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -20_000, payee_name: 'Claims Split Shop' },
    });
    const id = made.body.data.transaction.id;
    const res = await h.call('split_transaction', {
      transaction_id: id,
      subtransactions: [
        { amount: -12, category_id: 'Groceries' },
        { amount: -8, category_id: 'Coffee' },
      ],
    });
    expect(res.isError).toBeFalsy();
    expect(typeof res.structuredContent.confirm_token).toBe('string');
    // Nothing changed: the API still has it whole.
    expect((await h.sb.get(`/budgets/${budget.id}/transactions/${id}`)).body.data.transaction.subtransactions).toEqual([]);
  });

  it('every claim holds on the demo budgets (writes included), except those listed as pending, which still fail', async () => {
    const failed: string[] = [];
    const pendingHeld: string[] = [];
    let checked = 0;
    for (const def of TOOL_DEFINITIONS)
      for (const c of def.claims) {
        const key = `${def.name}: ${c.says}`;
        const args = typeof c.args === 'function' ? c.args() : (c.args ?? {});
        const res = await h.call(def.name, args);
        const problem = res.isError ? `error: ${res.content?.[0]?.text}` : c.check(res.structuredContent, raw);
        checked++;
        if (PENDING[key]) {
          if (!problem) pendingHeld.push(key);
        } else if (problem) failed.push(`${key} (${JSON.stringify(args)}): ${problem}`);
      }
    expect(failed).toEqual([]);
    expect(pendingHeld, 'holds now: take it off PENDING').toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(40);
  });
});
