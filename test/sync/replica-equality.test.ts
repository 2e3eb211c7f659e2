/**
 * The replica answers every read operation of the budget export with the same fields and values
 * as the service, after seeded random sequences of writes (creates, updates, deletes, splits,
 * transfers, category and month changes, payees, scheduled transactions), on both demo budgets.
 * Replica answers come through the service facade (delta-synced); API answers come straight
 * from the sandbox over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths } from '../../src/api/dates.js';
import { operation, type OperationId } from '../../src/api/operations/index.js';
import { buildPath, matchPath } from '../../src/api/paths.js';
import { Random } from '../../src/sandbox/demo/random.js';
import { REPLICA_OPERATIONS } from '../../src/sync/replica-reads.js';
import type { Stack } from '../../src/stack/stack.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { randomWrite, WRITE_KINDS } from './random-writes.js';
import { sandboxStack, type SandboxStack } from './sandbox-stack.js';

let fx: SandboxStack;
let sb: TestSandbox;
let stack: Stack;

beforeAll(async () => {
  fx = await sandboxStack({ seed: 'equality', rateLimit: 1_000_000 }, { maxStalenessMs: 0, quotaLimit: 1_000_000 });
  ({ sb, stack } = fx);
});

afterAll(() => fx.close());

/** Parameter sets to ask each operation with, drawn from the budget as it is now. */
async function cases(budgetId: string, rng: Random): Promise<[OperationId, Record<string, string>, Record<string, string>][]> {
  const b = `/plans/${budgetId}`;
  const accounts: any[] = (await sb.get(`${b}/accounts`)).body.data.accounts;
  const categories: any[] = (await sb.get(`${b}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories);
  const payees: any[] = (await sb.get(`${b}/payees`)).body.data.payees;
  const locations: any[] = (await sb.get(`${b}/payee_locations`)).body.data.payee_locations;
  const txns: any[] = (await sb.get(`${b}/transactions?since_date=2000-01-01`)).body.data.transactions;
  const scheduled: any[] = (await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions;
  const months: string[] = (await sb.get(`${b}/months`)).body.data.months.map((m: any) => m.month);
  const p = { budget_id: budgetId };
  const pick = <T>(xs: T[]) => rng.pick(xs);
  const split = txns.find((t: any) => t.subtransactions.length);
  const uncategorized = categories.find((c: any) => c.internal && c.name === 'Uncategorized');
  const out: [OperationId, Record<string, string>, Record<string, string>][] = [
    ['getPlanById', p, {}],
    ['getPlanSettingsById', p, {}],
    ['getAccounts', p, {}],
    ['getAccountById', { ...p, account_id: pick(accounts).id }, {}],
    ['getCategories', p, {}],
    ['getCategoryById', { ...p, category_id: pick(categories).id }, {}],
    ['getMonthCategoryById', { ...p, month: pick(months), category_id: pick(categories).id }, {}],
    ['getMonthCategoryById', { ...p, month: 'current', category_id: pick(categories).id }, {}],
    ['getPayees', p, {}],
    ['getPayeeById', { ...p, payee_id: pick(payees).id }, {}],
    ['getPayeeLocations', p, {}],
    ['getPlanMonths', p, {}],
    ['getPlanMonth', { ...p, month: pick(months) }, {}],
    ['getPlanMonth', { ...p, month: 'current' }, {}],
    ['getTransactions', p, {}],
    ['getTransactions', p, { since_date: '2000-01-01' }],
    ['getTransactions', p, { type: 'unapproved' }],
    ['getTransactions', p, { type: 'uncategorized', since_date: '2000-01-01' }],
    ['getTransactions', p, { since_date: addMonths(months.at(-1)!, -3), until_date: addMonths(months.at(-1)!, -1) }],
    ['getTransactionById', { ...p, transaction_id: pick(txns).id }, {}],
    ['getTransactionsByAccount', { ...p, account_id: pick(accounts).id }, {}],
    ['getTransactionsByAccount', { ...p, account_id: pick(accounts).id }, { since_date: '2000-01-01', type: 'unapproved' }],
    ['getTransactionsByCategory', { ...p, category_id: pick(categories).id }, { since_date: '2000-01-01' }],
    ['getTransactionsByPayee', { ...p, payee_id: pick(payees).id }, { since_date: '2000-01-01' }],
    ['getTransactionsByMonth', { ...p, month: pick(months) }, {}],
    ['getTransactionsByMonth', { ...p, month: 'current' }, { type: 'unapproved' }],
    ['getScheduledTransactions', p, {}],
    ['getScheduledTransactionById', { ...p, scheduled_transaction_id: pick(scheduled).id }, {}],
  ];
  if (locations.length) {
    const loc = pick(locations) as any;
    out.push(['getPayeeLocationById', { ...p, payee_location_id: loc.id }, {}], ['getPayeeLocationsByPayee', { ...p, payee_id: loc.payee_id }, {}]);
  }
  if (split) {
    out.push(['getTransactionById', { ...p, transaction_id: split.id }, {}]);
    const line = split.subtransactions.find((x: any) => x.category_id);
    if (line) out.push(['getTransactionsByCategory', { ...p, category_id: line.category_id }, {}]);
  }
  if (uncategorized) out.push(['getTransactionsByCategory', { ...p, category_id: uncategorized.id }, { since_date: '2000-01-01' }]);
  return out;
}

/** Names the first differing path, with both values, so a mismatch is readable. */
function describeDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) {
      const ids = (xs: any[]) => new Set(xs.map((x) => x?.id ?? x?.month ?? JSON.stringify(x)));
      const [ia, ib] = [ids(a), ids(b)];
      return `${path}: replica has ${a.length} items, API ${b.length}; only in replica ${[...ia].filter((x) => !ib.has(x)).slice(0, 3)}; only in API ${[...ib].filter((x) => !ia.has(x)).slice(0, 3)}`;
    }
    for (let i = 0; i < a.length; i++) {
      const d = describeDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b as object)])) {
      const d = describeDifference((a as any)[k], (b as any)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: replica ${JSON.stringify(a)?.slice(0, 300)} / API ${JSON.stringify(b)?.slice(0, 300)}`;
}

async function direct(id: OperationId, params: Record<string, string>, query: Record<string, string>) {
  const qs = Object.keys(query).length ? `?${new URLSearchParams(query)}` : '';
  const res = await sb.get(buildPath(operation(id), 'plans', params) + qs);
  return res;
}

async function compareAll(budgetId: string, rng: Random) {
  const mismatches: string[] = [];
  for (const [id, params, query] of await cases(budgetId, rng)) {
    const api = await direct(id, params, query);
    let replica: Record<string, unknown> | undefined;
    let error: any;
    try {
      replica = (await stack.service.call(id, { params, query })).data;
    } catch (e) {
      error = e;
    }
    if (api.status !== 200) {
      if (!error || error.status !== api.status)
        mismatches.push(`${id} ${JSON.stringify(params)}: API ${api.status}, replica ${error ? error.status : 'answered'}`);
      continue;
    }
    if (error) {
      mismatches.push(`${id} ${JSON.stringify(params)}: replica threw ${error.message}`);
      continue;
    }
    try {
      expect(replica).toEqual(api.body.data);
    } catch (e) {
      mismatches.push(
        `${id} ${JSON.stringify(params)} ${JSON.stringify(query)}: ${describeDifference(replica, api.body.data) ?? (e as Error).message.slice(0, 1500)}`,
      );
    }
  }
  return mismatches;
}

describe('replica answers equal API answers', () => {
  it.each([0, 1])('on demo budget %i, through seeded random writes', async (index) => {
    const budgetId = (await sb.get('/plans')).body.data.plans[index].id;
    const rng = new Random(`writes-${index}`);
    expect(await compareAll(budgetId, rng)).toEqual([]);
    const kinds = new Set<string>();
    // Half the writes go through our service (merged into the replica at once), half straight
    // to the API, as another app changing the budget would.
    const viaService = async (method: string, path: string, body?: unknown) => {
      const found = matchPath(method, path);
      if (found.kind !== 'match') throw new Error(`no operation for ${method} ${path}`);
      try {
        const res = await stack.service.call(found.match.op.id as OperationId, { params: found.match.params, body });
        return { status: res.status, body: { data: res.data } };
      } catch (e: any) {
        return { status: e.status ?? 500, body: { error: e.message } };
      }
    };
    // The first round does every kind of write once; the rest are drawn at random.
    for (const kind of WRITE_KINDS) kinds.add(await randomWrite(sb, budgetId, rng, rng.chance(0.5) ? viaService : undefined, kind));
    expect(await compareAll(budgetId, rng)).toEqual([]);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 8; i++) kinds.add(await randomWrite(sb, budgetId, rng, rng.chance(0.5) ? viaService : undefined));
      expect(await compareAll(budgetId, rng)).toEqual([]);
    }
    // The sequence exercised the kinds of change that matter.
    for (const kind of ['create', 'split', 'transfer', 'update', 'delete', 'month', 'category', 'payee', 'scheduled']) expect([...kinds]).toContain(kind);
  });

  it('serves the replica-answerable operations only from replicas', () => {
    expect(REPLICA_OPERATIONS.size).toBe(22);
  });
});
