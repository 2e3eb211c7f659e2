/**
 * What a replica's merges changed in its transactions (src/sync/line-changes.ts): the ids and
 * payees of a delta, and "everything" (undefined) for a merge that changes what lines are, for a
 * replica's first merge, and past MAX_IDS transactions.
 */
import { describe, expect, it } from 'vitest';
import { LineChanges, type Held, type Merge } from '../../src/sync/line-changes.js';

const account = (id: string, extra: Record<string, unknown> = {}) =>
  ({ id, on_budget: true, closed: false, type: 'checking', deleted: false, ...extra }) as any;
const tx = (id: string, payee_id: string | null) => ({ id, payee_id }) as any;
const payee = (id: string, name: string) => ({ id, name }) as any;

function held(m: Merge): Held {
  return {
    accounts: new Map((m.accounts ?? []).map((a) => [a.id, a])),
    transactions: new Map((m.transactions ?? []).map((t) => [t.id, t])),
    lines: new Map(),
    payees: new Map((m.payees ?? []).map((p) => [p.id, p])),
  };
}

const first: Merge = {
  accounts: [account('a1')],
  payees: [payee('p1', 'Grocer'), payee('p2', 'Cafe')],
  transactions: [tx('t1', 'p1'), tx('t2', 'p2')],
};

describe('what merges changed', () => {
  it("a replica's first merge is everything: nothing before it to compare with", () => {
    const c = new LineChanges();
    c.note(1, false, first, held({}));
    expect(c.since(0, 1)).toBeUndefined();
  });

  it('a delta after it: its transactions, and the payees they named before and after', () => {
    const c = new LineChanges();
    c.note(1, false, first, held({}));
    c.note(2, false, { transactions: [tx('t1', 'p2')] }, held(first));
    const change = c.since(1, 2)!;
    expect([...change.ids]).toEqual(['t1']);
    expect([...change.payees].sort()).toEqual(['p1', 'p2']);
  });

  it("everything when an account is added or changes kind, or the starting balances' payee comes", () => {
    for (const merge of [
      { accounts: [account('a2')], transactions: [tx('t3', 'p1')] },
      { accounts: [account('a1', { on_budget: false })] },
      { payees: [payee('p9', 'Starting Balance')], transactions: [tx('t4', 'p9')] },
    ] as Merge[]) {
      const c = new LineChanges();
      c.note(2, false, merge, held(first));
      expect(c.since(1, 2), JSON.stringify(merge)).toBeUndefined();
    }
  });

  it('a balance that moved is no change to any line', () => {
    const c = new LineChanges();
    c.note(2, false, { accounts: [account('a1', { balance: 5 })] }, held(first));
    expect(c.since(1, 2)).toEqual({ ids: new Set(), payees: new Set() });
  });

  it('everything past 10,000 transactions, and for a merge noted whole', () => {
    const many = new LineChanges();
    many.note(2, false, { transactions: Array.from({ length: 10_002 }, (_, i) => tx(`t${i}`, null)) }, held(first));
    expect(many.since(1, 2)).toBeUndefined();
    const write = new LineChanges();
    write.note(2, true, {}, held(first));
    expect(write.since(1, 2)).toBeUndefined();
  });
});
