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
 * A slot is for computing, not for waiting: while a request waits on YNAB or Redis (`aside`, which
 * the client's transport and the Redis store wrap their I/O in), its slot goes to the next request,
 * and when the I/O is back the request takes a slot again ahead of new arrivals (so it is not
 * starved; the oldest first among those back, rather than the first back, was tried in the crowd
 * and not kept: no gain beyond the runs' spread). So reads queued behind a burst of writes do not
 * wait for the writes' round trips, and no more than `slots` requests compute at once. The
 * request's turn is carried by an AsyncLocalStorage context (`Turn.run`), so the layers below
 * need no handle.
 *
 * A slot bounds the computing, not the turns of the loop: each wait on Redis lasts a turn, and a
 * turn is as long as the work of every request in the loop. With a crowd all let in (each one's
 * slot passed on at its first wait on Redis), a turn took 100-300 ms, and a write, about ten such
 * waits, 1-3 s. So at most `loopPlaces` requests are in the loop at once, computing or waiting on
 * Redis; a request waiting away from the loop (on YNAB, on another request's work: `aside(io,
 * 'away')`) gives its place up meanwhile and takes one again ahead of new arrivals. New arrivals
 * that write to YNAB (`enter(true)`) take the next place before the reads that came before them:
 * most of a write's time is waits on YNAB, which then overlap the reads' work instead of following
 * it (at 100 x 20, the 40 writes were the slowest calls: p50 0.8-1.0 s, after them 0.43 s).
 *
 * A request may wait in branches at once (Promise.all of reads, some on waits not wrapped here,
 * such as an inflate): it comes back from its I/O once, when the last of its waits ends, and a
 * branch whose wait ends while it comes back joins that return. (Each branch once came back on its
 * own: two branches back at once were given two places and gave one back, and each time one place
 * of the loop was lost for good, until the instance stopped with its requests all in line.)
 *
 * A slot is held at most `holdMaxMs` at a stretch: a call that waits on the person (a confirmation
 * dialog) or on anything not wrapped hands its slot on for good, so no number of such calls stops
 * the instance, and the answer to a dialog, itself a request, is never queued behind the call that
 * asked it.
 */
import { contextSlot } from '../shared/async-context.js';

/**
 * How long an instance must have had no active request before work no caller waits for begins
 * (quiet()): longer than the gap between one call's answer and the next call's arrival under a
 * crowd, short beside the time a person or a model takes between calls.
 */
export const QUIET_FOR_MS = 200;

/** A request's slot: computing (held), waiting on I/O (out), waiting to compute again (queued), or done with (gone). */
interface Slot {
  state: 'held' | 'out' | 'queued' | 'gone';
  /** Where its time went, for its log line: waiting for a slot, and out on I/O (ms). */
  queuedMs: number;
  ioMs: number;
  /** When it last went out on I/O, or began to wait for a slot again. */
  since: number;
  /** I/O of the request under way (a request may await several at once). */
  io: number;
  /** Of those, waits away from the loop (on YNAB, on another request's work). */
  away: number;
  /** Whether it holds a place in the loop (see `loopPlaces`). */
  inLoop: boolean;
  /** Wakes the request waiting for a place in the loop again, back from away: given one, or released. */
  reboard?: (given: boolean) => void;
  timer?: NodeJS.Timeout;
  /** Its return from I/O under way (a place, then a slot), which every branch back meanwhile joins. */
  returning?: Promise<void>;
  /** Wakes the request queued to compute again. */
  wake?: () => void;
  /** Ends the request's count among the active (once: at its release, or when its longest hold ran out). */
  settle: () => void;
}

/** What an instance's admission is doing now (metrics, /readyz). */
export interface AdmissionState {
  /** Requests waiting for a place or a slot (new ones, ones back from I/O). */
  waiting: number;
  /** Requests holding a slot: computing. */
  computing: number;
  /** Requests holding a place in the loop: computing, waiting for a slot, or waiting on Redis. */
  inLoop: number;
  /** How long requests have waited with none given a place or a slot (0: none waits). */
  stalledMs: number;
}

/** The release of a request's slot (once; later calls do nothing), and its context. */
export interface Turn {
  (): void;
  /** Runs `fn` (the request's work) with this turn as the one its I/O hands on. */
  run<T>(fn: () => T): T;
  /** The request's time so far waiting for a slot (on arrival and back from I/O), and out on I/O, in ms. */
  waited(): { queuedMs: number; ioMs: number };
}

export class Admission {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  /** Requests back from I/O: they take a free slot before any new arrival. */
  private readonly resuming: (() => void)[] = [];
  /** Requests in the loop (admitted, not released, not away): at most `loopPlaces`. */
  private inLoop = 0;
  /** Waiting for a place in the loop, served in this order: back from away, new writes, new others. */
  private readonly reboarding: ((given: boolean) => void)[] = [];
  private readonly boardingFirst: (() => void)[] = [];
  private readonly boarding: (() => void)[] = [];
  private readonly current = contextSlot<Slot>('admission slot');
  /** Told when a request kept its slot past `holdMaxMs` and passed it on for good. */
  onExpired?: () => void;
  /** Requests arrived and not yet released, less those past their longest hold (waiting on a person): quiet() waits for none. */
  private active = 0;
  private readonly onQuiet: (() => void)[] = [];
  /** When the last active request settled (none active since), for quiet()'s stretch. */
  private quietSince = -Infinity;
  /** When a request was last given a place or a slot, or began to wait with none waiting before it. */
  private lastMoved = performance.now();

  /**
   * `loopPlaces`: requests in the loop at once, computing or waiting on Redis (whose answer is back
   * within a turn of a loop that is not crowded). A request waiting away from the loop (on YNAB,
   * on another request's sync: `aside(io, 'away')`) gives its place up meanwhile.
   */
  constructor(
    private readonly slots: number,
    private readonly holdMaxMs: number,
    private readonly loopPlaces = Infinity,
  ) {}

  /** How many requests wait for a slot now (new ones and ones back from I/O). */
  get queued(): number {
    return this.waiting.length + this.resuming.length + this.boarding.length + this.boardingFirst.length + this.reboarding.length;
  }

  /** How many requests hold a slot now (compute, not wait on I/O). */
  get computing(): number {
    return this.busy;
  }

  /** What a scrape and /readyz see: the requests waiting, computing and in the loop, and how long the line has stood still. */
  state(now = performance.now()): AdmissionState {
    return { waiting: this.queued, computing: this.busy, inLoop: this.inLoop, stalledMs: this.queued === 0 ? 0 : now - this.lastMoved };
  }

  /** A request was given a place or a slot. */
  private moved(): void {
    this.lastMoved = performance.now();
  }

  /** A request begins to wait in `line`: with no one waiting before it, the line's standing still starts now. */
  private lineUp<T>(line: T[], waiter: T): void {
    if (this.queued === 0) this.moved();
    line.push(waiter);
  }

  /**
   * Resolves once no request has been active here for `forMs` on end (none waiting for a slot,
   * computing or out on I/O, save those past their longest hold), or after `maxMs`: for work no
   * caller waits for (background.ts). A moment with none active is not enough: under a crowd an
   * instance has one between a call's answer and the next call's arrival, and a scan started
   * then held the loop from the calls arriving during it (bench/RESULTS.md, hosted).
   */
  quiet(maxMs: number, forMs = QUIET_FOR_MS): Promise<void> {
    const until = performance.now() + maxMs;
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const check = () => {
        clearTimeout(timer);
        const i = this.onQuiet.indexOf(check);
        if (i >= 0) this.onQuiet.splice(i, 1);
        const now = performance.now();
        const left = this.active === 0 ? this.quietSince + forMs - now : Infinity;
        if (now >= until || left <= 0) return resolve();
        // Quiet, not yet long enough: look again when it would be. Busy: when it is quiet again.
        if (this.active > 0) this.onQuiet.push(check);
        timer = setTimeout(check, Math.min(left, until - now));
        timer.unref();
      };
      check();
    });
  }

  /**
   * Resolves when the request may go on (a place in the loop, then a slot), with its turn: the
   * release of both. `first`: a call that writes to YNAB, let in before other new arrivals.
   */
  async enter(first = false): Promise<Turn> {
    this.active += 1;
    let counted = true;
    const settle = () => {
      if (!counted) return;
      counted = false;
      if (slot.inLoop) this.leaveLoop(slot);
      this.active -= 1;
      if (this.active === 0) {
        this.quietSince = performance.now();
        for (const done of this.onQuiet.slice()) done();
      }
    };
    const arrived = performance.now();
    let waited = false;
    if (this.inLoop < this.loopPlaces) this.inLoop += 1;
    else waited = await new Promise<true>((resolve) => this.lineUp(first ? this.boardingFirst : this.boarding, () => resolve(true)));
    if (this.busy < this.slots) this.busy += 1;
    else waited = await new Promise<true>((resolve) => this.lineUp(this.waiting, () => resolve(true)));
    this.moved();
    const queuedMs = waited ? performance.now() - arrived : 0;
    const slot: Slot = { state: 'held', io: 0, away: 0, inLoop: true, queuedMs, ioMs: 0, since: 0, settle };
    this.hold(slot);
    const release = () => {
      settle();
      const was = slot.state;
      slot.state = 'gone';
      clearTimeout(slot.timer);
      if (was === 'held') this.passOn();
      else if (was === 'queued') {
        this.resuming.splice(this.resuming.indexOf(slot.wake!), 1);
        slot.wake!();
      } else if (slot.reboard) {
        this.reboarding.splice(this.reboarding.indexOf(slot.reboard), 1);
        slot.reboard(false);
      }
    };
    return Object.assign(release, {
      run: <T>(fn: () => T): T => this.current.run(slot, fn),
      waited: () => ({ queuedMs: slot.queuedMs, ioMs: slot.ioMs }),
    });
  }

  /**
   * Awaits `io` (a Redis command; `away`: a request to YNAB, another request's work) without
   * holding the slot of the request it is part of, and takes a slot again before going on; away,
   * its place in the loop goes on too, and is taken again first. Outside an admitted request, just `io()`.
   */
  async aside<T>(io: () => Promise<T>, where: 'loop' | 'away' = 'loop'): Promise<T> {
    const slot = this.current.getStore();
    if (!slot || slot.state === 'gone') return io();
    slot.io += 1;
    if (slot.state === 'held') this.goOut(slot);
    if (where === 'away' && ++slot.away === 1 && slot.inLoop) this.leaveLoop(slot);
    try {
      return await io();
    } finally {
      slot.io -= 1;
      if (where === 'away') slot.away -= 1;
      // Back once, whichever of its branches' waits ends last: a branch whose wait ends while the
      // request comes back joins that return, so a request never asks for two places.
      if (slot.io === 0 && slot.state === 'out') await (slot.returning ??= this.comeBack(slot).finally(() => (slot.returning = undefined)));
    }
  }

  /** The request's I/O is all back: a place in the loop, then a slot, before going on. */
  private async comeBack(slot: Slot): Promise<void> {
    const back = performance.now();
    slot.ioMs += back - slot.since;
    slot.since = back;
    // The place in the loop before the slot: a slot is never held waiting for a place.
    if (!slot.inLoop) await this.reboard(slot);
    if (slot.state === 'out') await this.resume(slot);
    // Another branch began a wait meanwhile: the slot goes on again, and the place too if it is away.
    if (slot.state === 'held' && slot.io > 0) this.goOut(slot);
    if (slot.away > 0 && slot.inLoop && slot.state !== 'gone') this.leaveLoop(slot);
  }

  /** The request leaves the loop (away, or done): its place goes to one back from away, else to a new arrival. */
  private leaveLoop(slot: Slot): void {
    slot.inLoop = false;
    const back = this.reboarding.shift();
    const next = back ? () => back(true) : (this.boardingFirst.shift() ?? this.boarding.shift());
    if (!next) {
      this.inLoop -= 1;
      return;
    }
    this.moved();
    next();
  }

  /** Back from away: a place in the loop again, before any new arrival. */
  private async reboard(slot: Slot): Promise<void> {
    if (this.inLoop < this.loopPlaces) {
      this.inLoop += 1;
      slot.inLoop = true;
      return;
    }
    await new Promise<void>((resolve) => {
      // Given a place by leaveLoop (it holds it from then on), or released while it waited (its
      // client left: it goes on with no place, and takes none).
      slot.reboard = (given) => {
        slot.reboard = undefined;
        slot.inLoop = given;
        resolve();
      };
      this.lineUp(this.reboarding, slot.reboard);
    });
  }

  /** The request waits on I/O: its slot passes on. */
  private goOut(slot: Slot): void {
    slot.state = 'out';
    slot.since = performance.now();
    clearTimeout(slot.timer);
    this.passOn();
  }

  /** Starts the slot's longest hold: past it, the slot passes on for good. */
  private hold(slot: Slot): void {
    slot.state = 'held';
    slot.timer = setTimeout(() => {
      slot.state = 'gone';
      slot.settle(); // waiting on a person, or on anything not wrapped: no longer keeps the instance from quiet
      this.onExpired?.();
      this.passOn();
    }, this.holdMaxMs);
    slot.timer.unref();
  }

  /** A slot given up: it passes straight on, first to a request back from I/O. */
  private passOn(): void {
    const next = this.resuming.shift() ?? this.waiting.shift();
    if (!next) {
      this.busy -= 1;
      return;
    }
    this.moved();
    next();
  }

  private async resume(slot: Slot): Promise<void> {
    if (this.busy < this.slots) {
      this.busy += 1;
      this.hold(slot);
    } else {
      slot.state = 'queued';
      await new Promise<void>((resolve) => {
        slot.wake = () => {
          // Given a slot by passOn, unless the request was released while it waited.
          if (slot.state === 'queued') {
            slot.queuedMs += performance.now() - slot.since;
            this.hold(slot);
          }
          resolve();
        };
        this.lineUp(this.resuming, slot.wake);
      });
    }
  }
}
