/**
 * Work a sync starts that the answer being made need not wait for: the alerts' scan of a copy a
 * write read back (src/stack/stack.ts onSynced). A write's answer is made `answering` (its read back
 * and what it answers: src/writes/pipeline/pipeline.ts); a scan its sync started waits until then,
 * so the answer goes first and the scan runs after it, on the same instance. Tracked from the start
 * all the same (a drain awaits it). Outside an answer being made, nothing waits.
 */
import { contextSlot } from '../shared/async-context.js';

const made = contextSlot<Promise<void>>('answer made');

/** Runs `fn`, the making of an answer; what asked afterAnswer() inside it goes once it is made (the turn after). */
export async function answering<T>(fn: () => Promise<T>): Promise<T> {
  let done!: () => void;
  const answered = new Promise<void>((resolve) => (done = resolve));
  try {
    return await made.run(answered, fn);
  } finally {
    setImmediate(done);
  }
}

/** Resolves once the answer being made where this is asked is made; at once outside one. */
export function afterAnswer(): Promise<void> {
  return made.getStore() ?? Promise.resolve();
}
