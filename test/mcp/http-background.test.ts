/**
 * Work no caller waits for, on a hosted instance (src/transport/background.ts over the admission's
 * quiet(), src/transport/http-admission.ts): it runs when no request has been active for
 * QUIET_FOR_MS (none waiting for a slot, computing or out on I/O, save one past its longest hold),
 * not at a moment between two calls, one job at a time, and after its longest wait whatever the
 * load. The clock is vitest's, moved by hand: nothing here depends on real time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Admission, QUIET_FOR_MS } from '../../src/transport/http-admission.js';
import { background } from '../../src/transport/background.js';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('background work waits for a quiet instance', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at once when no request is active, and waits while one is: waiting for a slot, computing or out on I/O', async () => {
    const a = new Admission(1, 60_000);
    const later = background(a, 10_000);
    const ran: string[] = [];
    await later(async () => void ran.push('idle'));
    expect(ran).toEqual(['idle']);

    const first = await a.enter();
    const second = a.enter(); // waits for the one slot
    let io!: () => void;
    const out = first.run(() => a.aside(() => new Promise<void>((r) => (io = r)))); // the first goes out on I/O: the second computes
    const job = later(async () => void ran.push('after both'));
    await settle();
    expect(ran).toEqual(['idle']);
    (await second)();
    await settle();
    expect(ran).toEqual(['idle']); // the first is still out on I/O
    io();
    await out;
    await settle();
    expect(ran).toEqual(['idle']); // back and computing
    first();
    await settle();
    expect(ran).toEqual(['idle']); // none active, not yet for long
    await vi.advanceTimersByTimeAsync(QUIET_FOR_MS);
    await job;
    expect(ran).toEqual(['idle', 'after both']);
  });

  it('does not start at a moment with none active between two calls: only once none has been for QUIET_FOR_MS', async () => {
    const a = new Admission(2, 60_000);
    const later = background(a, 10_000);
    const ran: string[] = [];
    const call = await a.enter();
    const job = later(async () => void ran.push('job'));
    call(); // answered; the next call arrives a little later, as a crowd's do
    await vi.advanceTimersByTimeAsync(QUIET_FOR_MS - 1);
    const next = await a.enter();
    await vi.advanceTimersByTimeAsync(QUIET_FOR_MS * 3);
    expect(ran).toEqual([]); // the next call is active
    next();
    await vi.advanceTimersByTimeAsync(QUIET_FOR_MS - 1);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await job;
    expect(ran).toEqual(['job']);
  });

  it('runs its jobs one at a time, in the order asked', async () => {
    const a = new Admission(2, 60_000);
    const later = background(a, 10_000);
    const log: string[] = [];
    let finishFirst!: () => void;
    const one = later(async () => {
      log.push('one starts');
      await new Promise<void>((r) => (finishFirst = r));
      log.push('one ends');
    });
    const two = later(async () => void log.push('two'));
    await settle();
    expect(log).toEqual(['one starts']);
    finishFirst();
    await Promise.all([one, two]);
    expect(log).toEqual(['one starts', 'one ends', 'two']);
  });

  it('runs after its longest wait however busy the instance stays, counted from when it was asked', async () => {
    const a = new Admission(2, 60_000);
    const later = background(a, 10_000);
    const busy = await a.enter();
    const ran: number[] = [];
    const first = later(async () => void ran.push(1));
    vi.advanceTimersByTime(4_000);
    const second = later(async () => void ran.push(2));
    vi.advanceTimersByTime(5_999);
    await settle();
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    await first;
    expect(ran).toEqual([1]); // 10 s after it was asked
    vi.advanceTimersByTime(3_999);
    await settle();
    expect(ran).toEqual([1]);
    vi.advanceTimersByTime(1);
    await second;
    expect(ran).toEqual([1, 2]); // its own 10 s, not 10 s after the first ran
    busy();
  });

  it('a request past its longest hold (waiting on a person) no longer keeps the instance from quiet; a job failing does not stop the next', async () => {
    const a = new Admission(2, 1_000);
    const later = background(a, 10_000);
    const dialog = await a.enter();
    const ran: string[] = [];
    const failing = later(async () => {
      throw new Error('scan failed');
    });
    const next = later(async () => void ran.push('next'));
    await settle();
    vi.advanceTimersByTime(1_000); // the hold runs out: the slot is passed on for good
    await vi.advanceTimersByTimeAsync(QUIET_FOR_MS);
    await expect(failing).rejects.toThrow('scan failed');
    await next;
    expect(ran).toEqual(['next']);
    dialog();
  });
});
