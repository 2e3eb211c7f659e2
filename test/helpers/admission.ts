/**
 * Waits the admission tests (src/transport/http-admission.ts) end by hand: a gate, a turn of the
 * event loop, and whether a request is let in within a few turns.
 */

/** A wait that ends when told to. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

export const turnOfLoop = () => new Promise((r) => setImmediate(r));

/** Whether `entering` is let in within a few turns of the loop. */
export async function letIn(entering: Promise<unknown>): Promise<boolean> {
  let entered = false;
  void entering.then(() => (entered = true));
  for (let i = 0; i < 5; i++) await turnOfLoop();
  return entered;
}
