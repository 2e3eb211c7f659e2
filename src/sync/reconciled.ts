/**
 * When this server last reconciled each account of a budget (reconcile_account, applied): YNAB's
 * API cannot set an account's last_reconciled_at, so what is reconciled here would otherwise
 * look unreconciled to needs_attention, the alerts and the digest. One small JSON value per
 * budget in the state store (`reconciled/<identity>/<budget>.json`: a file for a local user, a
 * Redis key in hosted mode, under the user's identity like the rules and the undo journal), each
 * account's time as an ISO date-time like last_reconciled_at. Every record is one atomic
 * read-modify-write (StateStore.update) that keeps the later time, so two processes or hosted
 * instances reconciling at once both land. Account ids and times only: nothing to seal.
 */
import { reconciledKey } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';

/** Account id → when this server last reconciled it (ISO date-time). */
export type ReconciledAt = Readonly<Record<string, string>>;

/** The value kept: `{ "accounts": { "<account id>": "2026-11-25T22:08:43.000Z" } }`. */
interface Stored {
  accounts: Record<string, string>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/;

/** The accounts of a value as kept; a value this server did not write reads as none (it is replaced by the next record). */
function accountsOf(bytes: Uint8Array | undefined): Record<string, string> {
  const value = parseJsonBytes(bytes) as Partial<Stored> | undefined;
  const accounts = value && typeof value.accounts === 'object' && value.accounts ? value.accounts : {};
  return Object.fromEntries(Object.entries(accounts).filter(([, at]) => typeof at === 'string' && ISO.test(at)));
}

/** The later of YNAB's last_reconciled_at and this server's time for the account (either may be missing). */
export function lastReconciled(ynab: string | null | undefined, here: string | undefined): string | undefined {
  if (!ynab) return here;
  if (!here) return ynab;
  return Date.parse(here) > Date.parse(ynab) ? here : ynab;
}

export class ReconciledDates {
  private readonly identity: () => Promise<string>;

  constructor(
    private readonly store: StateStore,
    identity: string | (() => Promise<string>),
  ) {
    this.identity = typeof identity === 'string' ? async () => identity : identity;
  }

  private async key(budgetId: string): Promise<string> {
    return reconciledKey(await this.identity(), budgetId);
  }

  /** Every account of the budget this server reconciled, with when. */
  async get(budgetId: string): Promise<ReconciledAt> {
    return accountsOf(await this.store.get(await this.key(budgetId)));
  }

  /**
   * Forgets the account's time: its reconcile was undone. A time recorded before it is not kept,
   * so YNAB's date counts again: the account may be called not reconciled sooner, never later.
   */
  async forget(budgetId: string, accountId: string): Promise<void> {
    await this.store.update(await this.key(budgetId), (bytes) => {
      const { [accountId]: gone, ...accounts } = accountsOf(bytes);
      return { value: gone === undefined ? undefined : jsonBytes({ accounts } satisfies Stored), result: undefined };
    });
  }

  /** Records that the account was reconciled at `at` (an ISO date-time), unless a later time is kept. */
  async record(budgetId: string, accountId: string, at: string): Promise<void> {
    await this.store.update(await this.key(budgetId), (bytes) => {
      const accounts = accountsOf(bytes);
      if (lastReconciled(accounts[accountId], at) === accounts[accountId]) return { value: undefined, result: undefined };
      return { value: jsonBytes({ accounts: { ...accounts, [accountId]: at } } satisfies Stored), result: undefined };
    });
  }
}
