/**
 * The admission of MCP requests to an instance (src/transport/http-admission.ts): at most `slots`
 * at work, the others let in in the order they came, a slot passed straight on when released,
 * released once however often its release is called, and handed on by itself when held past its
 * longest hold (the clock is vitest's, moved by hand: nothing here depends on real time).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Admission } from '../../src/transport/http-admission.js';

/** Starts `n` requests; `order` records when each is let in. */
function arrive(a: Admission, n: number, order: number[]): Promise<() => void>[] {
  return Array.from({ length: n }, (_, i) =>
    a.enter().then((release) => {
      order.push(i);
      return release;
    }),
  );
}

const settle = () => new Promise((r) => setImmediate(r));

describe('Admission', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets `slots` in at once and the rest in the order they came, as slots are released', async () => {
    const a = new Admission(2, 1000);
    const order: number[] = [];
    const entered = arrive(a, 5, order);
    await settle();
    expect(order).toEqual([0, 1]);
    expect(a.queued).toBe(3);
    (await entered[1]!)();
    await settle();
    expect(order).toEqual([0, 1, 2]);
    (await entered[0]!)();
    await settle();
    expect(order).toEqual([0, 1, 2, 3]);
    expect(a.queued).toBe(1);
  });

  it('a release counts once: calling it again lets no one else in', async () => {
    const a = new Admission(1, 1000);
    const order: number[] = [];
    const entered = arrive(a, 3, order);
    await settle();
    const release = await entered[0]!;
    release();
    release();
    await settle();
    expect(order).toEqual([0, 1]);
    expect(a.queued).toBe(1);
  });

  it('a slot held past the longest hold passes to the next (a request waiting on a dialog stops no one)', async () => {
    const a = new Admission(1, 1000);
    const order: number[] = [];
    const entered = arrive(a, 3, order);
    await settle();
    vi.advanceTimersByTime(999);
    await settle();
    expect(order).toEqual([0]);
    vi.advanceTimersByTime(1);
    await settle();
    expect(order).toEqual([0, 1]);
    // The first request's own release, later, is spent: the second keeps the slot.
    (await entered[0]!)();
    await settle();
    expect(order).toEqual([0, 1]);
    (await entered[1]!)();
    await settle();
    expect(order).toEqual([0, 1, 2]);
  });

  it('with no one waiting, a released slot is free for the next to come at once', async () => {
    const a = new Admission(1, 1000);
    (await a.enter())();
    const order: number[] = [];
    arrive(a, 1, order);
    await settle();
    expect(order).toEqual([0]);
    expect(a.queued).toBe(0);
  });
});
