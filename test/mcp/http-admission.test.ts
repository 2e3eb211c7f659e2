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

  it('a request held past the longest hold gives its place in the loop up too (places fewer than slots)', async () => {
    const a = new Admission(4, 1000, 1);
    const order: number[] = [];
    const entered = arrive(a, 2, order);
    await settle();
    expect(order).toEqual([0]);
    vi.advanceTimersByTime(1000);
    await settle();
    expect(order).toEqual([0, 1]);
    (await entered[0]!)();
    (await entered[1]!)();
    expect(a.computing).toBe(0);
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

describe('Admission: a slot is for computing, not for waiting on I/O (aside)', () => {
  const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  it('a request waiting on I/O lets the next one in, and when its I/O is back it computes again before any new arrival', async () => {
    const a = new Admission(1, 60_000);
    const order: string[] = [];
    let answer!: () => void;
    const io = new Promise<void>((r) => (answer = r));
    const write = a.enter().then((turn) =>
      turn.run(async () => {
        order.push('write computes');
        await a.aside(() => io);
        order.push('write computes again');
        turn();
      }),
    );
    await settle();
    const read = a.enter().then((turn) => {
      order.push('read computes');
      return turn; // keeps its slot until released below
    });
    const readTurn = await read;
    expect(order).toEqual(['write computes', 'read computes']);
    const later = a.enter().then((turn) => (order.push('new arrival computes'), turn()));
    answer();
    await settle();
    // Back from its I/O, the write waits for the read's slot, ahead of the new arrival.
    expect(a.queued).toBe(2);
    readTurn();
    await write;
    await later;
    expect(order).toEqual(['write computes', 'read computes', 'write computes again', 'new arrival computes']);
    expect(a.computing).toBe(0);
  });

  it('each turn says where its time went: waiting for a slot (on arrival, back from I/O) and out on I/O', async () => {
    const a = new Admission(1, 60_000);
    const first = await a.enter();
    const out = first.run(() => a.aside(() => pause(5)));
    const second = await a.enter(); // the slot passed on while the first is out
    await pause(10);
    expect(a.queued).toBe(1); // the first, back, waits for the second's slot
    second();
    await out;
    first();
    expect(first.waited().ioMs).toBeGreaterThan(0);
    expect(first.waited().queuedMs).toBeGreaterThan(0);
    expect(second.waited()).toEqual({ queuedMs: 0, ioMs: 0 });
  });

  it('no more than `slots` requests compute at once, however many wait on I/O; every one finishes', async () => {
    const a = new Admission(2, 60_000);
    let computing = 0;
    let most = 0;
    let finished = 0;
    const request = async (i: number) => {
      const turn = await a.enter();
      await turn.run(async () => {
        for (let step = 0; step < 4; step++) {
          // Computing, across a turn of the event loop (as a long answer is built).
          computing += 1;
          most = Math.max(most, computing);
          await new Promise((r) => setImmediate(r));
          computing -= 1;
          // Two waits at once sometimes (a request may await several commands together).
          if (step % 2) await Promise.all([a.aside(() => pause((i % 3) + 1)), a.aside(() => pause(1))]);
          else await a.aside(() => pause((i % 5) + 1));
        }
      });
      turn();
      finished += 1;
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => request(i)));
    expect(finished).toBe(12);
    expect(most).toBe(2);
    expect(a.computing).toBe(0);
    expect(a.queued).toBe(0);
  });

  it('a request released while it waits to compute again (its client left) goes on without a slot, and takes none from others', async () => {
    const a = new Admission(1, 60_000);
    const left = await a.enter();
    let back = false;
    const leaving = left.run(() => a.aside(() => pause(1)).then(() => (back = true)));
    const other = await a.enter();
    await pause(5);
    expect(a.queued).toBe(1); // the first, back from its I/O, waits to compute again
    left();
    await leaving;
    expect(back).toBe(true);
    expect(a.queued).toBe(0);
    expect(a.computing).toBe(1); // the other's slot, still held
    other();
    expect(a.computing).toBe(0);
  });
});

describe('Admission: places in the loop (computing or waiting on Redis), given up only while away on YNAB', () => {
  const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  it('no more than `loopPlaces` requests in the loop, those waiting on Redis counted; one away gives its place up and takes one again before any new arrival', async () => {
    const a = new Admission(4, 60_000, 2);
    const order: string[] = [];
    let redisBack!: () => void;
    let ynabBack!: () => void;
    const redis = new Promise<void>((r) => (redisBack = r));
    const ynab = new Promise<void>((r) => (ynabBack = r));
    const read = await a.enter();
    const write = await a.enter();
    const waitingOnRedis = read.run(() => a.aside(() => redis));
    const third = a.enter().then((turn) => (order.push('third'), turn));
    await settle();
    // The read waits on Redis: it keeps its place, though not its slot, and the third waits.
    expect(order).toEqual([]);
    expect(a.computing).toBe(1);
    expect(a.queued).toBe(1);
    const awayOnYnab = write.run(() => a.aside(() => ynab, 'away').then(() => order.push('write back')));
    await settle();
    expect(order).toEqual(['third']); // the write's place, given up while it waits on YNAB
    const fourth = a.enter().then((turn) => (order.push('fourth'), turn));
    ynabBack();
    await settle();
    // Back from YNAB, the write waits for a place again, ahead of the fourth.
    expect(order).toEqual(['third']);
    expect(a.queued).toBe(2);
    (await third)();
    await awayOnYnab;
    expect(order).toEqual(['third', 'write back']);
    redisBack();
    await waitingOnRedis;
    read();
    await settle();
    expect(order).toEqual(['third', 'write back', 'fourth']);
    write();
    (await fourth)();
    expect(a.computing).toBe(0);
    expect(a.queued).toBe(0);
  });

  it("one that waits away on another's work (its turn, its lock) leaves its place: the other, back from YNAB, can come back and finish", async () => {
    const a = new Admission(1, 60_000, 1);
    let ynabBack!: () => void;
    const ynab = new Promise<void>((r) => (ynabBack = r));
    const holder = await a.enter();
    let finished!: () => void;
    const holderDone = new Promise<void>((r) => (finished = r));
    const holding = holder.run(async () => {
      await a.aside(() => ynab, 'away');
      finished();
    });
    const joiner = await a.enter(); // the place, given up while the holder is away
    const joining = joiner.run(() => a.aside(() => holderDone, 'away'));
    ynabBack();
    await holding; // it could take a place again: the joiner's wait is away too
    holder();
    await joining;
    joiner();
    expect(a.computing).toBe(0);
    expect(a.queued).toBe(0);
  });

  it('a request released while it waits for its place back (its client left) goes on, and takes no place from others', async () => {
    const a = new Admission(4, 60_000, 1);
    const left = await a.enter();
    let back = false;
    const leaving = left.run(() => a.aside(() => pause(1), 'away').then(() => (back = true)));
    const other = await a.enter(); // the place, given up while the first is away
    await pause(5);
    expect(a.queued).toBe(1); // the first, back, waits for a place
    left();
    await leaving;
    expect(back).toBe(true);
    expect(a.queued).toBe(0);
    const next = a.enter();
    let entered = false;
    void next.then(() => (entered = true));
    await settle();
    expect(entered).toBe(false); // the one place is the other's still
    other();
    await settle();
    expect(entered).toBe(true);
    (await next)();
    expect(a.computing).toBe(0);
  });

  it('many requests, some waiting on Redis and some away on YNAB: never more than `loopPlaces` in the loop, and every one finishes', async () => {
    const a = new Admission(3, 60_000, 4);
    let inLoop = 0;
    let most = 0;
    let finished = 0;
    const request = async (i: number) => {
      const turn = await a.enter();
      inLoop += 1;
      most = Math.max(most, inLoop);
      await turn.run(async () => {
        for (let step = 0; step < 4; step++) {
          await new Promise((r) => setImmediate(r));
          if ((i + step) % 3 === 0) {
            inLoop -= 1;
            await a.aside(() => pause((i % 4) + 1), 'away');
            inLoop += 1;
            most = Math.max(most, inLoop);
          } else await Promise.all([a.aside(() => pause(1)), a.aside(() => pause((i % 2) + 1))]);
        }
      });
      inLoop -= 1;
      turn();
      finished += 1;
    };
    await Promise.all(Array.from({ length: 16 }, (_, i) => request(i)));
    expect(finished).toBe(16);
    expect(most).toBe(4);
    expect(a.computing).toBe(0);
    expect(a.queued).toBe(0);
  });
});
