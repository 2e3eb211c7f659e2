/**
 * Values carried through a request's async calls (the admission's slot, the deadline's exchange,
 * its counts, its reads ahead, the watcher's mark, ...), each a slot of one AsyncLocalStorage.
 *
 * Why one: on Node 20 an AsyncLocalStorage is kept by an async_hooks init hook that, for every
 * promise and resource the process creates, copies each storage in use onto it as a property of
 * its own. With seven storages a hosted read's promises each got seven (about 7 % of its CPU in
 * async_hooks, half of that after; bench/RESULTS.md, hosted history). One storage of small frames
 * costs one.
 *
 * A slot behaves as an AsyncLocalStorage's run() and getStore(): run() sets the slot's value for
 * `fn` and what it starts, keeping every other slot's value as it was there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What is in the context: each slot's value under its own symbol. Never changed once made. */
type Frame = Readonly<Record<symbol, unknown>>;

const frames = new AsyncLocalStorage<Frame>();

export interface ContextSlot<T> {
  /** Runs `fn` with this slot set to `value` (the other slots as they are). */
  run<R>(value: T, fn: () => R): R;
  /** This slot's value where this is called, or undefined outside any run() of it. */
  getStore(): T | undefined;
}

/** A new slot; `name` only labels its symbol (two slots of one name are two slots). */
export function contextSlot<T>(name: string): ContextSlot<T> {
  const key = Symbol(name);
  return {
    run: (value, fn) => frames.run({ ...frames.getStore(), [key]: value }, fn),
    getStore: () => frames.getStore()?.[key] as T | undefined,
  };
}

/**
 * Runs `fn` outside every slot: what it starts belongs to no request (not counted as its Redis
 * commands, not waited for by its admission turn). For a request's fire-and-forget bookkeeping.
 */
export function outsideRequests<R>(fn: () => R): R {
  return frames.exit(fn);
}
