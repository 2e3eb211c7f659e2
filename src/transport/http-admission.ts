/**
 * Admission of MCP requests to an instance: at most `slots` at work at once, the rest waiting in
 * arrival order. Why: an instance's work is async, and every request waits its turn on the one
 * event loop at each step (each read from Redis, each request to YNAB). With every request let
 * in, a call of many steps (a write: its journal, the request to YNAB, the saved copy, its feed)
 * waits behind every other call at each of them, so under a crowd it takes many times a read's
 * time: the slowest calls were the writes and the first reads of copies (bench/RESULTS.md, Hosted
 * mode). Admitted in order, each call's steps wait behind a few others only, and what a crowd adds
 * is the same wait in the queue for every call.
 *
 * A slot is held at most `holdMaxMs`: a call that waits on the person (a confirmation dialog) or
 * on a slow YNAB hands its slot on, so no number of such calls stops the instance, and the answer
 * to a dialog, itself a request, is never queued behind the call that asked it.
 */
export class Admission {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly holdMaxMs: number,
  ) {}

  /** How many requests wait for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves when the request may go on, with the release of its slot (once; later calls do nothing). */
  async enter(): Promise<() => void> {
    if (this.busy < this.slots) this.busy += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight on
      else this.busy -= 1;
    };
    const timer = setTimeout(release, this.holdMaxMs);
    timer.unref();
    return release;
  }
}
