/**
 * Waiting for something another caller will change in a state store: a short pause that polls
 * (other processes and instances can only be seen by reading again), cut short when a caller
 * of this process signals that it changed the thing waited on.
 */
const waiting = new Map<string, Set<() => void>>();

/** Waits up to `maxMs` (jittered poll, at most ~50 ms), or until `signal(name)`. */
export function pause(name: string, maxMs: number): Promise<void> {
  const delay = Math.max(1, Math.min(maxMs, 20 + Math.random() * 30));
  return new Promise((resolve) => {
    let set = waiting.get(name);
    if (!set) waiting.set(name, (set = new Set()));
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (!set.size && waiting.get(name) === set) waiting.delete(name);
      resolve();
    };
    const timer = setTimeout(done, delay);
    set.add(done);
  });
}

/** Wakes every caller of this process pausing on `name`. */
export function signal(name: string): void {
  for (const wake of [...(waiting.get(name) ?? [])]) wake();
}
