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
import { Admission, type Turn } from '../../src/transport/http-admission.js';
import { gate, letIn, turnOfLoop } from '../helpers/admission.js';

/**
 * The request's work in two branches: a wait away on YNAB; and a wait on Redis, then one the
 * admission does not see (e.g. an inflate), then `last` (on Redis, or away).
 */
function inTwoBranches(a: Admission, turn: Turn, last: 'loop' | 'away') {
  const waits = { ynab: gate(), redis: gate(), unwatched: gate(), last: gate() };
  const work = turn.run(() =>
    Promise.all([
      a.aside(() => waits.ynab.wait, 'away'),
      (async () => {
        await a.aside(() => waits.redis.wait);
        await waits.unwatched.wait;
        await a.aside(() => waits.last.wait, last);
      })(),
    ]),
  );
  return { ...waits, work };
}

describe('Admission: a request in branches comes back from its I/O once', () => {
  it('a branch whose wait ends while another waits for its place back takes no second place: the place is free again once both leave', async () => {
    const a = new Admission(4, 60_000, 1);
    const first = await a.enter();
    const { ynab, redis, unwatched, last: secondRedis, work } = inTwoBranches(a, first, 'loop');
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
    const { ynab, redis, unwatched, last: secondYnab, work } = inTwoBranches(a, first, 'away');
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
