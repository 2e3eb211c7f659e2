/**
 * The warm-up's store (warm-up.ts, warm-mcp.ts): the made-up budget's saved copy and what its
 * made-up user's calls keep (a quota ledger, a session budget), in this process's memory only.
 * Nothing of it reaches Redis, so the warm-up leaves no key behind and no user's data is touched.
 */
import type { Change, StateStore } from '../storage/store.js';

/** The warm-up user's identity: made up, and only ever in this process's memory. */
export const WARM_IDENTITY = '000000000000000000000000';

export class MemoryStore implements StateStore {
  readonly location = 'memory (warm-up)';
  private readonly values = new Map<string, Uint8Array>();
  describe = (key: string) => key;
  get = async (key: string) => this.values.get(key);
  set = async (key: string, value: Uint8Array) => void this.values.set(key, value);
  delete = async (key: string) => void this.values.delete(key);
  list = async (prefix: string) => [...this.values.keys()].filter((k) => k.startsWith(prefix));
  async update<T>(key: string, change: (current: Uint8Array | undefined) => Change<T>): Promise<T> {
    const { value, result } = change(this.values.get(key));
    if (value === null) this.values.delete(key);
    else if (value !== undefined) this.values.set(key, value);
    return result;
  }
  withLock = <T>(_name: string, fn: () => Promise<T>) => fn();
}
