/**
 * The common start of the sandbox behaviour suites: a sandbox whose clock starts at T0 (mid-month,
 * then runs at real speed), so months and date offsets are the same whatever day the tests run,
 * and the Demo Household budget with its accounts and categories looked up by name. Paths are
 * under /plans, the current description (prefixes.test.ts covers what /budgets answers otherwise).
 */
import { expect } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

export const T0 = Date.parse('2026-11-14T12:00:00.000Z');
export const TODAY = '2026-11-14';
/** The date `offset` days from TODAY. */
export const day = (offset: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/** The demo accounts the transaction suites work with, by their role in the tests. */
const ROLES = {
  checking: 'Everyday Checking',
  savings: 'Rainy Day Savings',
  wallet: 'Wallet',
  visa: 'Visa Rewards',
  mortgage: 'Lake Cabin Mortgage',
} as const;

export interface PinnedDemo {
  sb: TestSandbox;
  /** Every budget of the sandbox (the demo has two). */
  budgets: any[];
  /** Demo Household, and its path prefix `/plans/{id}`. */
  budget: any;
  b: string;
  /** Every account / every category (of every group, internal ones included) by name. */
  accounts: Record<string, any>;
  cat: Record<string, any>;
  /** The accounts of ROLES, by role. */
  acc: Record<keyof typeof ROLES, any>;
  /** POSTs one transaction (on Everyday Checking, dated TODAY, unless `t` says otherwise); expects 201. */
  create(t: Record<string, unknown>): Promise<any>;
}

export async function pinnedDemo(): Promise<PinnedDemo> {
  const started = Date.now();
  const sb = await testSandbox({ rateLimit: 1_000_000, clock: () => new Date(T0 + (Date.now() - started)) });
  const budgets = (await sb.get('/plans')).body.data.plans;
  const budget = budgets.find((x: any) => x.name === 'Demo Household');
  const b = `/plans/${budget.id}`;
  const list: any[] = (await sb.get(`${b}/accounts`)).body.data.accounts;
  const accounts: Record<string, any> = {};
  for (const a of list) accounts[a.name] = a;
  const acc = Object.fromEntries(Object.entries(ROLES).map(([role, name]) => [role, list.find((a) => a.name === name)])) as PinnedDemo['acc'];
  const cat: Record<string, any> = {};
  for (const g of (await sb.get(`${b}/categories`)).body.data.category_groups) for (const c of g.categories) cat[c.name] = c;
  const create = async (t: Record<string, unknown>) => {
    const res = await sb.call('POST', `${b}/transactions`, { transaction: { account_id: acc.checking.id, date: TODAY, ...t } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.transaction;
  };
  return { sb, budgets, budget, b, accounts, cat, acc, create };
}

/** Names no other test uses: `unique('Shop')` gives e.g. "Shop-1-k3x9q2" (with sep '-'). */
export function uniqueNames(sep: string): (what: string) => string {
  let n = 0;
  return (what) => `${what}${sep}${++n}${sep}${Math.random().toString(36).slice(2, 8)}`;
}
