/**
 * A store that closes: once close() has returned, nothing more reaches the store through it. A
 * call can outlive its server (an HTTP call past its deadline goes on behind its timed-out
 * answer), and what it would write then (a ledger entry, a saved replica) would land in a state
 * directory its process has let go of, or that a test is removing. close() waits for the
 * operations already under way, then refuses every new one with a StateStoreError that says why.
 * Each stack wraps its store in one (src/stack/stack.ts); a store shared by several stacks
 * (hosted mode's Redis) stays open for the others.
 */
import { passesTo } from './id-list.js';
import { type Change, type Held, type LockOptions, type SetOptions, type StateStore, StateStoreError } from './store.js';

/** What the store refuses once its server has closed: work cut short by the close, no failure of its own. */
export class StoreClosedError extends StateStoreError {}

export class ClosingGate {
  private closed = false;
  private readonly underWay = new Set<Promise<unknown>>();

  /** Runs `op` unless closed; `what` names what it touches, for the refusal. */
  run<T>(what: string, failure: 'read' | 'write' | 'lock', op: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new StoreClosedError(
          failure,
          what,
          `${what} was not ${failure === 'read' ? 'read' : 'written'}: the server had closed (a call still running then ends here)`,
        ),
      );
    }
    const p = op();
    this.underWay.add(p);
    const done = () => void this.underWay.delete(p);
    p.then(done, done);
    return p;
  }

  /** `inner`, through this gate. */
  store(inner: StateStore): StateStore {
    const at = (key: string) => inner.describe(key);
    const outer: StateStore = {
      location: inner.location,
      describe: (key) => inner.describe(key),
      get: (key) => this.run(at(key), 'read', () => inner.get(key)),
      set: (key, value, opts?: SetOptions) => this.run(at(key), 'write', () => inner.set(key, value, opts)),
      delete: (key) => this.run(at(key), 'write', () => inner.delete(key)),
      list: (prefix) => this.run(`${inner.location} (${prefix}…)`, 'read', () => inner.list(prefix)),
      update: <T>(key: string, change: (current: Uint8Array | undefined) => Change<T>, opts?: SetOptions) =>
        this.run(at(key), 'write', () => inner.update(key, change, opts)),
      withLock: <T>(name: string, fn: (held?: Held) => Promise<T>, opts?: LockOptions) =>
        this.run(`the lock ${name}`, 'lock', () => inner.withLock(name, fn, opts)),
    };
    // The id lists completed in `inner` (hosted mode, at an instance's start) are complete through this store too.
    passesTo(outer, inner);
    return outer;
  }

  /** Refuses from now on, once what is under way has ended (what it starts meanwhile is refused). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }
}
