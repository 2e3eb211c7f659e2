/**
 * A budget's copy made from the sandbox's raw export over HTTP, as a full sync makes it: for tests
 * that compare what a copy kept by deltas gives with what a copy of the whole export gives, and
 * what those suites share: a sandbox per seed, the account and category they write to, the
 * recurring charge they reprice, and a scan's conditions as text.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type * as E from '../../src/api/schemas/entities.js';
import { detect } from '../../src/events/detect.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { detectRecurring } from '../../src/insights/recurring/recurring-detect.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { testSandbox, type TestSandbox } from './sandbox.js';

/** The budget's export over HTTP, whole or since a knowledge. */
export async function exportOf(sb: TestSandbox, id: string, since?: number): Promise<{ plan: any; knowledge: number }> {
  const res = await sb.get(`/plans/${id}${since === undefined ? '' : `?last_knowledge_of_server=${since}`}`);
  expect(res.status).toBe(200);
  return { plan: res.body.data.plan, knowledge: res.body.data.server_knowledge };
}

/** A copy of an export's `plan`, synced at `at`. */
export function copyOfExport(plan: any, knowledge: number, at = Date.now()): BudgetReplica {
  const r = new BudgetReplica({
    id: plan.id,
    name: plan.name,
    last_modified_on: null,
    first_month: null,
    last_month: null,
    date_format: null,
    currency_format: null,
  });
  r.applyExport(plan, knowledge, at);
  return r;
}

/** A copy of the budget's whole export now. */
export async function fullCopy(sb: TestSandbox, id: string): Promise<BudgetReplica> {
  const { plan, knowledge } = await exportOf(sb, id);
  return copyOfExport(plan, knowledge);
}

/** A sandbox of `seed` for the suite it is called in (started before it, closed after), and its first plan's id. */
export function seededPlan(seed: string): { sb: TestSandbox; id: string } {
  const at = {} as { sb: TestSandbox; id: string };
  beforeAll(async () => {
    at.sb = await testSandbox({ seed });
    at.id = (await at.sb.get('/plans')).body.data.plans[0].id;
  });
  afterAll(async () => {
    await at.sb?.close();
  });
  return at;
}

/** An open on-budget account of the plan, and a visible category other than YNAB's own, as the raw API lists them. */
export async function accountAndCategory(sb: TestSandbox, id: string): Promise<{ account: any; category: any }> {
  const accounts = (await sb.get(`/plans/${id}/accounts`)).body.data.accounts.filter((a: any) => a.on_budget && !a.closed && !a.deleted);
  const categories = (await sb.get(`/plans/${id}/months/current`)).body.data.month.categories.filter((c: any) => !c.deleted && !c.hidden);
  return { account: accounts[0], category: categories.find((c: any) => c.name !== 'Inflow: Ready to Assign' && c.name !== 'Uncategorized') };
}

/** The latest charge of a steady recurring outflow the copy's detection finds (not a transfer), if any: repriced, its payee's price rise changes. */
export function latestRecurringCharge(copy: BudgetReplica, today: string): E.TransactionSummaryBase | undefined {
  const recurring = detectRecurring(BudgetView.of(copy), today).find((d) => d.typical < 0 && !d.transfer_account_id && d.steady);
  if (!recurring) return undefined;
  return [...copy.transactions.values()]
    .filter((t) => t.payee_id === recurring.payee_id && t.account_id === recurring.account_id && t.date === recurring.last_date)
    .at(-1);
}

/** The conditions a scan of the copy gives now, as text (byte for byte comparisons). */
export const scanText = (copy: BudgetReplica, now: Date): string => JSON.stringify(detect(BudgetView.of(copy), now));
