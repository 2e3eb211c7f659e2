/**
 * A request whose work runs in branches at once (Promise.all of reads, one of them waiting on
 * something the admission does not see, such as an inflate or a decryption) comes back from its
 * I/O once, however its branches' waits end (src/transport/http-admission.ts). A branch that
 * started and ended a wait while another branch waited for its place back used to wait for a
 * place of its own too: the request was given two places and gave one back, and each time one
 * place of the loop was lost for good. With every place lost, the instance stopped: its requests
 * waited in line for ever while /readyz said ready (bench/RESULTS.md, the stalled hosted runs).
 */
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/transport/http-admission.js';

/** A wait that ends when told to. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

const turnOfLoop = () => new Promise((r) => setImmediate(r));

/** Whether `entering` is let in within a few turns of the loop. */
async function letIn(entering: Promise<unknown>): Promise<boolean> {
  let entered = false;
  void entering.then(() => (entered = true));
  for (let i = 0; i < 5; i++) await turnOfLoop();
  return entered;
}

describe('Admission: a request in branches comes back from its I/O once', () => {
  it('a branch whose wait ends while another waits for its place back takes no second place: the place is free again once both leave', async () => {
    const a = new Admission(4, 60_000, 1);
    const first = await a.enter();
    const ynab = gate();
    const redis = gate();
    const unwatched = gate(); // e.g. an inflate: a wait the admission does not see
    const secondRedis = gate();
    const work = first.run(() =>
      Promise.all([
        a.aside(() => ynab.wait, 'away'),
        (async () => {
          await a.aside(() => redis.wait);
          await unwatched.wait;
          await a.aside(() => secondRedis.wait);
        })(),
      ]),
    );
    await turnOfLoop();
    const other = await a.enter(); // the one place, given up while the first is away
    redis.open(); // the second branch goes on to its unwatched wait
    await turnOfLoop();
    ynab.open(); // the request's last wait ends: it waits for its place back
    await turnOfLoop();
    expect(a.queued).toBe(1);
    unwatched.open(); // meanwhile the second branch starts a wait on Redis, and it ends
    await turnOfLoop();
    secondRedis.open();
    await turnOfLoop();
    expect(a.queued).toBe(1); // still the request, once
    other();
    await work;
    first();
    expect(a.queued).toBe(0);
    expect(a.computing).toBe(0);
    // Both gone: the place is free for the next.
    const next = a.enter();
    expect(await letIn(next)).toBe(true);
    (await next)();
  });

  it('a branch that starts a wait away while the request waits for its place back leaves the place again when it is given', async () => {
    const a = new Admission(4, 60_000, 1);
    const first = await a.enter();
    const redis = gate();
    const unwatched = gate();
    const ynab = gate();
    const secondYnab = gate();
    const work = first.run(() =>
      Promise.all([
        a.aside(() => ynab.wait, 'away'),
        (async () => {
          await a.aside(() => redis.wait);
          await unwatched.wait;
          await a.aside(() => secondYnab.wait, 'away');
        })(),
      ]),
    );
    await turnOfLoop();
    const other = await a.enter();
    redis.open();
    await turnOfLoop();
    ynab.open(); // waits for its place back
    await turnOfLoop();
    unwatched.open(); // the second branch goes away to YNAB meanwhile
    await turnOfLoop();
    other(); // the place goes back to the first, which is still away: it passes on
    const third = a.enter();
    expect(await letIn(third)).toBe(true);
    secondYnab.open();
    await turnOfLoop();
    (await third)(); // the first takes the place back and finishes
    await work;
    first();
    expect(a.queued).toBe(0);
    expect(a.computing).toBe(0);
    const next = a.enter();
    expect(await letIn(next)).toBe(true);
    (await next)();
  });
});
