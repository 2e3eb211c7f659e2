/**
 * Transaction lists answered from a replica come to the tools as a LazyList (rows selected, each
 * detail built when shown): the same items as the eager list, serialized the same, and the output
 * builder gives byte-identical answers from either, paging, picking fields and capping size alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LazyList } from '../../src/api/read/lazy-list.js';
import { buildOutput } from '../../src/mcp/output/builder.js';
import { queryKey } from '../../src/shared/paging.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import type { YnabService } from '../../src/sync/service.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let service: YnabService;
let account: string;
beforeAll(async () => {
  h = await mcpHarness();
  service = await h.state.service();
  account = ok(await h.call('list_accounts')).accounts.find((a: any) => a.type === 'checking').id;
});
afterAll(() => h?.close());

const since = { since_date: '2000-01-01' };

describe('lazy transaction lists', () => {
  it.each([
    ['getTransactions', {}],
    ['getTransactionsByAccount', { account_id: 'ACCOUNT' }],
    ['getTransactionsByMonth', { month: 'current' }],
  ] as const)('%s: the same items as the eager list', async (id, extra) => {
    const params = { budget_id: 'last-used', ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v === 'ACCOUNT' ? account : v])) };
    const eager = (await service.call(id, { params, query: since })).data.transactions;
    const lazy = (await service.call(id, { params, query: since }, { lazyLists: true })).data.transactions;
    expect(Array.isArray(eager)).toBe(true);
    expect(lazy).toBeInstanceOf(LazyList);
    expect(lazy.length).toBe(eager.length);
    expect(eager.length).toBeGreaterThan(id === 'getTransactionsByMonth' ? 5 : 100);
    expect(lazy.toArray()).toEqual(eager);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
  });

  it('the output builder answers the same from either, for pages, fields, full detail and the size cap', async () => {
    const def = TOOL_DEFINITIONS.find((d) => d.name === 'list_transactions')! as Extract<(typeof TOOL_DEFINITIONS)[number], { kind: 'api' }>;
    const eager = (await service.call('getTransactions', { params: { budget_id: 'last-used' }, query: since })).data;
    const lazy = (await service.call('getTransactions', { params: { budget_id: 'last-used' }, query: since }, { lazyLists: true })).data;
    const variants: [Record<string, unknown>, number][] = [
      [{ limit: 20 }, 60_000],
      [{ limit: 20, fields: ['amount_formatted', 'payee_name'] }, 60_000],
      [{ limit: 5, detail: 'full' }, 60_000],
      [{ limit: 200 }, 8_000], // over the cap: fewer items, and a notice
    ];
    for (const [args, maxChars] of variants) {
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const options = { ...(args as object), cursor, queryKey: queryKey('list_transactions', args) } as any;
        const input = (data: Record<string, unknown>) => ({ shape: def.shape, data, options, ctx: { format: null }, maxChars });
        const a = buildOutput(input(eager));
        const b = buildOutput(input(lazy));
        expect(b.text, JSON.stringify(args)).toBe(a.text);
        cursor = a.structured.next_cursor as string | undefined;
        if (!cursor) break;
      }
    }
  });
});
