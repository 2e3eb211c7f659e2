/**
 * In-process turns: tasks with the same name run one after another, in call order. A
 * cross-process lock (a lock directory, a Redis lease) is taken once per process per name; without
 * this queue, concurrent callers of one process would spin on the lock their own process holds.
 */
const queues = new Map<string, Promise<void>>();

export function inTurn<T>(name: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(name) ?? Promise.resolve();
  const run = previous.then(task);
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
