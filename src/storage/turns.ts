/**
 * In-process turns: tasks with the same name run one after another, in call order. A
 * cross-process lock (a lock directory, a Redis lease) is taken once per process per name; without
 * this queue, concurrent callers of one process would spin on the lock their own process holds.
 */
import type { IoAside } from './store.js';

const queues = new Map<string, Promise<void>>();

export function inTurn<T>(name: string, task: () => Promise<T>, wait?: IoAside): Promise<T> {
  const previous = queues.get(name);
  // Waiting for another caller's turn is a wait (hosted: the request's admission slot goes on meanwhile).
  const run = (previous && wait ? wait(() => previous) : (previous ?? Promise.resolve())).then(task);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(name, tail);
  void tail.then(() => {
    if (queues.get(name) === tail) queues.delete(name);
  });
  return run;
}
