/**
 * One full collection of the heap after the first sync of a large budget, between its save and its
 * alerts' scan (stack.ts). The export read leaves tens of MB of garbage that V8 collects only once
 * the old space reaches a limit it set while the export was read; the save and the scan run before
 * that, on top of it. Collected first, they reuse its room: peak RSS of serve at 100,000
 * transactions 208-236 MB without, 202-216 MB with (issue 61, measured under a load of 6-12). It
 * costs 60-130 ms of the main thread once per budget and process. `global.gc` is V8's own, exposed
 * at run time as jest-leak-detector does; where it cannot be had, nothing is collected.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Budgets with fewer transactions leave too little garbage to be worth a collection. */
export const COLLECT_FROM_TRANSACTIONS = 20_000;

let gc: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  } catch {
    gc = null;
  }
  return gc;
}

const collected = new WeakSet<object>();

/** Collects once for `copy` (a budget's replica held by this process) when it holds `transactions` or more. */
export function collectOnce(copy: object, transactions: number): void {
  if (transactions < COLLECT_FROM_TRANSACTIONS || collected.has(copy)) return;
  collected.add(copy);
  collector()?.();
}
