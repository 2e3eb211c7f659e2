/**
 * A budget's copy made from the sandbox's raw export over HTTP, as a full sync makes it: for tests
 * that compare what a copy kept by deltas gives with what a copy of the whole export gives.
 */
import { expect } from 'vitest';
import { BudgetReplica } from '../../src/sync/replica.js';
import type { TestSandbox } from './sandbox.js';

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
