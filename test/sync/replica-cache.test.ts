/**
 * One bound for all the users of a hosted instance: each user's manager sees only their own copies
 * through a view named by their identity, the least recently used copy of anyone goes first when
 * the bound is passed, and a copy replaced under its name stays held.
 */
import { expect, it } from 'vitest';
import { BudgetReplica } from '../../src/sync/replica.js';
import { ownReplicaCache, SharedReplicaCache } from '../../src/sync/replica-cache.js';

/** A copy of `transactions` transactions (sized by BudgetReplica.approximateSize). */
function copy(id: string, transactions: number): BudgetReplica {
  const r = new BudgetReplica({ id, name: id, last_modified_on: null, first_month: null, last_month: null, date_format: null, currency_format: null });
  for (let i = 0; i < transactions; i++) r.transactions.set(`${id}-${i}`, { id: `${id}-${i}` } as never);
  return r;
}

it("a user's view holds and lists only their copies; the instance counts everyone's bytes", () => {
  const cache = new SharedReplicaCache(10 * 1024 * 1024);
  const ann = cache.of('ann');
  const bob = cache.of('bob');
  const a = copy('budget', 100);
  const b = copy('budget', 200);
  ann.set('budget', a);
  bob.set('budget', b);
  expect(ann.get('budget')).toBe(a);
  expect(bob.get('budget')).toBe(b);
  expect(ann.values()).toEqual([a]);
  expect(cache.bytes()).toBe(a.approximateSize() + b.approximateSize());
  expect(cache.size).toBe(2);
});

it('past the bound the least recently used copy goes, whoever it belongs to', () => {
  const one = copy('x', 1_000).approximateSize();
  const cache = new SharedReplicaCache(Math.floor(2.5 * one));
  const ann = cache.of('ann');
  const bob = cache.of('bob');
  ann.set('b1', copy('b1', 1_000));
  bob.set('b1', copy('b1', 1_000));
  ann.get('b1'); // ann's is now the more recently used
  bob.set('b2', copy('b2', 1_000));
  expect(bob.get('b1')).toBeUndefined();
  expect(bob.values().map((r) => r.summary.id)).toEqual(['b2']);
  expect(ann.get('b1')).toBeDefined();
  expect(cache.bytes()).toBeLessThanOrEqual(Math.floor(2.5 * one));
});

it('a copy replaced under its name stays held and listed', () => {
  const cache = new SharedReplicaCache(10 * 1024 * 1024);
  const ann = cache.of('ann');
  ann.set('b', copy('b', 10));
  const newer = copy('b', 20);
  ann.set('b', newer);
  expect(ann.get('b')).toBe(newer);
  expect(ann.values()).toEqual([newer]);
  expect(cache.bytes()).toBe(newer.approximateSize());
});

it("the single-user server's cache is an LRU of its own bound", () => {
  const one = copy('x', 1_000).approximateSize();
  const own = ownReplicaCache(Math.floor(1.5 * one));
  own.set('a', copy('a', 1_000));
  own.set('b', copy('b', 1_000));
  expect(own.get('a')).toBeUndefined();
  expect(own.values().map((r) => r.summary.id)).toEqual(['b']);
});
