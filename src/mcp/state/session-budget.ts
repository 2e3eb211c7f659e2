/**
 * The session's default budget. YNAB's `last-used` alias moves with every access to a budget, our
 * own included: resolved on every call, one call naming another budget would move the default of
 * every call after it. So `last-used` is resolved once per session, by the first call that needs
 * it, and then stays: only an explicit choice changes the default (`--budget`, `budget_id` for one
 * call).
 *
 * What a session is depends on the transport (docs/state-and-configuration.md#the-default-budget-of-a-session):
 *  - stdio: the process (one host connection); the choice is kept in memory;
 *  - HTTP, single user: the server process, whatever the clients and their eras (the 2026-07-28
 *    era has no session at all, a 2025-era client gets a session id only for views), in memory;
 *  - hosted: the signed-in user, since requests are served by any instance, per request: the
 *    choice is kept in the state store (`replicas/<identity>/session-budget.json`), and lapses a
 *    day after it was last used, so the next day starts from `last-used` again.
 */
import type { IoAside, StateStore } from '../../storage/store.js';
import { jsonBytes, parseJsonBytes } from '../../storage/store.js';
import { sessionBudgetKey } from '../../storage/keys.js';

export interface ChosenBudget {
  id: string;
  /** When it was chosen or last used (ms): a kept choice is touched at most once an hour. */
  at: number;
}

/** Where a session's choice is kept. */
export interface BudgetChoiceKeeper {
  get(): Promise<ChosenBudget | undefined>;
  /** Keeps `choice` unless one is kept already; returns the one kept (first wins across instances). */
  claim(choice: ChosenBudget): Promise<ChosenBudget>;
  touch(choice: ChosenBudget): Promise<void>;
}

/** One process, one session: memory. */
export function memoryKeeper(): BudgetChoiceKeeper {
  let kept: ChosenBudget | undefined;
  return {
    get: async () => kept,
    claim: async (c) => (kept ??= c),
    touch: async () => undefined,
  };
}

const LAPSE_MS = 24 * 3600_000;
const TOUCH_AFTER_MS = 3600_000;
/**
 * How long an instance answers from the choice it read last, without reading it again. This is
 * what a read would say: a kept choice changes only by lapsing, a day after it was last kept
 * (claim or touch), and every call that reads it touches it once it is an hour old, so a choice
 * read now is kept for 23 hours more at least. It saves one of a hosted call's four reads of the
 * store in sequence.
 */
const HOLD_MS = 60_000;

/** Hosted: the user's choice in the shared store, the same for every instance serving them. */
export function storeKeeper(store: StateStore, identity: string, now: () => number = Date.now): BudgetChoiceKeeper {
  const key = sessionBudgetKey(identity);
  const read = (bytes: Uint8Array | undefined): ChosenBudget | undefined => {
    const v = parseJsonBytes(bytes) as Partial<ChosenBudget> | undefined;
    return v && typeof v.id === 'string' && typeof v.at === 'number' ? { id: v.id, at: v.at } : undefined;
  };
  let held: { choice: ChosenBudget; until: number } | undefined;
  const hold = (choice: ChosenBudget): ChosenBudget => {
    held = { choice, until: now() + HOLD_MS };
    return choice;
  };
  return {
    get: async () => {
      if (held && now() < held.until) return held.choice;
      const kept = read(await store.get(key));
      held = undefined;
      return kept && hold(kept);
    },
    claim: async (c) =>
      hold(
        await store.update(
          key,
          (current) => {
            const kept = read(current);
            return kept ? { value: undefined, result: kept } : { value: jsonBytes(c), result: c };
          },
          { ttlMs: LAPSE_MS },
        ),
      ),
    touch: async (c) => {
      if (now() - c.at < TOUCH_AFTER_MS) return;
      const touched = { id: c.id, at: now() };
      await store.set(key, jsonBytes(touched), { ttlMs: LAPSE_MS });
      hold(touched);
    },
  };
}

/** The session's resolved `last-used`, single-flight within the process. */
export class SessionBudget {
  private pending: Promise<string> | undefined;
  /** This instance made the choice and no answer has said so yet. */
  private untold = false;

  /**
   * `wait`: how a call waits on another call's resolve (hosted: its admission slot goes on
   * meanwhile; held, the other call could not take a slot back to finish, and both stood still
   * until the slot ran out).
   */
  constructor(
    private readonly keeper: BudgetChoiceKeeper = memoryKeeper(),
    private readonly wait?: IoAside,
  ) {}

  /** The budget chosen for this session, if any yet (reads, never resolves). */
  async current(): Promise<ChosenBudget | undefined> {
    return this.keeper.get();
  }

  /** The session's budget: the kept one, else `resolve()`'s, kept from now on. */
  async resolve(resolve: () => Promise<string>): Promise<string> {
    const kept = await this.keeper.get();
    if (kept) {
      await this.keeper.touch(kept).catch(() => undefined);
      return kept.id;
    }
    const joining = this.pending;
    if (joining) return this.wait ? this.wait(() => joining) : joining;
    this.pending = (async () => {
      const choice = { id: await resolve(), at: Date.now() };
      const chosen = await this.keeper.claim(choice);
      // Another instance may have chosen first (hosted): then its choice stands, and it says so.
      if (chosen === choice) this.untold = true;
      return chosen.id;
    })().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** True once, for the first answer after this instance made the choice: that answer says which. */
  tell(): boolean {
    const told = this.untold;
    this.untold = false;
    return told;
  }
}
