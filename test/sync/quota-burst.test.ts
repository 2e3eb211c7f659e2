/**
 * The request budget holds under load: a burst of 1,000 mixed reads against a sandbox that
 * allows 50 requests an hour causes no 429 at all; reads the replica can answer are answered
 * (stale, with a notice once the budget is spent), and every refusal names the next free slot.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError, QuotaExhaustedError } from '../../src/api/client/errors.js';
import type { Stack } from '../../src/stack/stack.js';
import type { OperationId } from '../../src/api/operations/index.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { sandboxStack, type SandboxStack } from './sandbox-stack.js';

let fx: SandboxStack;
let sb: TestSandbox;
let stack: Stack;

beforeAll(async () => {
  // Past the staleness bound every read wants a request: the hardest case for the budget.
  fx = await sandboxStack({ seed: 'burst', rateLimit: 50 }, { maxStalenessMs: 0 });
  ({ sb, stack } = fx);
});

afterAll(() => fx.close());

it('1,000 reads cause no 429; refusals name the next slot; answers say how fresh they are', async () => {
  const budgets = (await sb.get('/budgets', sb.readOnlyToken)).body.data.budgets;
  const budget = budgets[0].id;
  const ops: [OperationId, Record<string, string>][] = [
    ['getAccounts', { budget_id: budget }],
    ['getTransactions', { budget_id: budget }],
    ['getCategories', { budget_id: budget }],
    ['getPlanMonth', { budget_id: budget, month: 'current' }],
    ['getMoneyMovements', { budget_id: budget }],
    ['getUser', {}],
    ['getPlans', {}],
  ];
  let answered = 0;
  let stale = 0;
  let refused = 0;
  const rateLimited: string[] = [];
  const badRefusals: string[] = [];
  // Ten at a time: concurrent reads of one budget share a sync, so this still wants hundreds of requests.
  const results: PromiseSettledResult<Awaited<ReturnType<typeof stack.service.call>>>[] = [];
  for (let batch = 0; batch < 100; batch++) {
    results.push(
      ...(await Promise.allSettled(
        Array.from({ length: 10 }, (_, j) => {
          const [id, params] = ops[(batch * 10 + j) % ops.length]!;
          return stack.service.call(id, { params });
        }),
      )),
    );
  }
  for (const r of results) {
    if (r.status === 'fulfilled') {
      answered += 1;
      if (r.value.freshness?.stale) {
        stale += 1;
        expect(r.value.freshness.notice).toMatch(/next (request|read) possible at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in [^)]+\)/);
      }
      continue;
    }
    const e = r.reason;
    if (e instanceof ApiError && e.status === 429) rateLimited.push(e.message);
    else if (e instanceof QuotaExhaustedError) {
      refused += 1;
      if (!/next (request|read) possible at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in [^)]+\)/.test(e.message) || !(e.nextSlotAt.getTime() > Date.now()))
        badRefusals.push(e.message);
    } else throw e;
  }
  expect(rateLimited).toEqual([]);
  expect(badRefusals).toEqual([]);
  // Reads never use the 10 requests kept for writes.
  const status = await stack.ledger(sb.accessToken).status();
  expect(status.used).toBeLessThanOrEqual(40);
  expect(status.readRemaining).toBe(0);
  expect(answered + refused).toBe(1000);
  expect(stale).toBeGreaterThan(500);
  // The service agrees: the token has made exactly as many requests as the ledger counted.
  const header = (await sb.get('/user')).headers.get('x-rate-limit');
  expect(header).toBe(`${status.used + 1}/50`);
});
