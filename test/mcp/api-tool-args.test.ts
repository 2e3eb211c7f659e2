/**
 * An API tool's arguments are typed from their schemas as far as a table-built tool allows: the
 * controls, budget_id and the date window as their schemas say; the operation's own fields
 * (path, query, body) kept as they are. And the code that builds tools from the table, shows
 * their answers and makes their writes exactly once holds no `any`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiToolArgs, type ApiToolArgs } from '../../src/mcp/tools/args.js';
import { apiTool } from '../../src/mcp/tools/definitions.js';
import { REPO_ROOT } from '../helpers/cli.js';

describe('API tool arguments', () => {
  it("types the controls, budget_id and the date window from their schemas, and keeps the operation's own fields", () => {
    const def = apiTool('list_account_transactions')!;
    const input = def.input.parse({
      budget_id: 'b',
      account_id: 'Checking',
      since_date: '2024-01-01',
      type: 'unapproved',
      limit: 5,
      detail: 'full',
      fields: ['id'],
    });
    const args = apiToolArgs(input);
    expect(args).toEqual(input);
    expectTypeOf(args.budget_id).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.detail).toEqualTypeOf<'compact' | 'full' | undefined>();
    expectTypeOf(args.fields).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(args.limit).toEqualTypeOf<number | undefined>();
    expectTypeOf(args.cursor).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.since_date).toEqualTypeOf<string | undefined>();
    expectTypeOf(args.include_all).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(args.allow_duplicate).toEqualTypeOf<boolean | undefined>();
    // The operation's own fields come from the table at run time: known to be there, not what they are.
    expectTypeOf(args.account_id).toEqualTypeOf<unknown>();
    expect(def.args.toCall(args, { budget: 'default' })).toEqual({
      params: { budget_id: 'b', account_id: 'Checking' },
      query: { since_date: '2024-01-01', type: 'unapproved' },
      body: undefined,
    });
  });

  it('takes every control the tools can be given', () => {
    const shape: Partial<Record<keyof ApiToolArgs, unknown>> = {};
    for (const name of ['get_month', 'list_categories', 'list_transactions', 'create_transactions']) Object.assign(shape, apiTool(name)!.input.shape);
    for (const control of ['detail', 'fields', 'include_all', 'limit', 'cursor', 'allow_duplicate'] as const) expect(shape[control], control).toBeDefined();
  });
});

/** Every .ts file of a folder. */
const filesIn = (dir: string) => readdirSync(join(REPO_ROOT, dir)).flatMap((f) => (f.endsWith('.ts') ? [`${dir}/${f}`] : []));

describe('no any', () => {
  it('in the operations table, the API tools, their output, and the replica reads and exactly-once writes', () => {
    const files = [
      ...filesIn('src/api/operations'),
      'src/mcp/tools/args.ts',
      'src/mcp/tools/definitions.ts',
      ...filesIn('src/mcp/output'),
      'src/sync/replica-reads.ts',
      'src/sync/writes.ts',
      'src/sync/creates.ts',
      'src/sync/create-match.ts',
      'src/sync/transaction-updates.ts',
    ];
    const found: string[] = [];
    for (const file of files) {
      readFileSync(join(REPO_ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/Record<string, any>|:\s*any\b|\bas any\b|<any>|\bany\[\]/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
