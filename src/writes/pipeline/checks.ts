/**
 * What a planned write is checked for against the budget's copy, the same for every tool:
 *  - its targets: an update or delete acts on an entity this budget holds. One it does not hold
 *    (an id of another budget, a typo) or saw deleted is refused, "not found" or "already
 *    deleted", before a preview is answered, so that no confirm token is handed out for nothing
 *    (the gate calls this, gate.ts);
 *  - its references: the ids a re-creation sends (account, payee, category, split lines') are
 *    this budget's, so that a delete is never followed by a create YNAB refuses (undo.ts; the
 *    ids in a task's arguments are checked where names are resolved, ../mcp/resolve.ts);
 *  - closed accounts: YNAB takes a transaction into a closed account as into an open one (the
 *    account stays closed), so such a write is made, with a notice saying the account is closed.
 */
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { currentState, type EntityChange, type State } from './entities.js';

/** Why an entity this budget's copy does not hold is not there, as far as the copy knows. */
export function absentText(r: BudgetReplica, id: string): string {
  return r.wasDeleted(id) ? 'already deleted' : 'not found in this budget';
}

/** Targets named in one refusal; the rest are counted. */
const NAMED = 10;

/**
 * Refuses (ArgumentError, nothing changed) a write that would update or delete what the budget
 * does not hold. Creates are not targets; a month's assignment needs its category only (a month
 * ahead of the copy's months can be assigned).
 */
export function checkTargets(entities: readonly EntityChange[], r: BudgetReplica): void {
  const missing: { what: string; id: string }[] = [];
  for (const e of entities) {
    if (e.linked || e.action === 'create' || e.before) continue;
    if (e.kind !== 'month_category') missing.push({ what: e.kind.replace('_', ' '), id: e.id });
    else {
      const categoryId = e.id.slice(e.id.indexOf('/') + 1);
      if (!currentState(r, 'category', categoryId)) missing.push({ what: 'category', id: categoryId });
    }
  }
  if (!missing.length) return;
  const more = missing.length > NAMED ? ` and ${missing.length - NAMED} more` : '';
  const hint = missing.some((m) => !r.wasDeleted(m.id)) ? "; the list and search tools give this budget's ids" : '';
  throw new ArgumentError(
    `${missing
      .slice(0, NAMED)
      .map((m) => `${m.what} ${m.id}: ${absentText(r, m.id)}`)
      .join('; ')}${more}. Nothing was changed and there is nothing to confirm${hint}`,
  );
}

const lines = (s: State) => (s.subtransactions as State[] | undefined) ?? [];

/** The ids a transaction's state refers to that this budget's copy does not hold ("category 1a2b…: not found in this budget"). */
export function unknownReferences(r: BudgetReplica, s: State): string[] {
  const out: string[] = [];
  const check = (what: string, id: unknown, map: Map<string, unknown>) => {
    if (typeof id === 'string' && id && !map.has(id)) out.push(`${what} ${id}: ${absentText(r, id)}`);
  };
  check('account', s.account_id, r.accounts);
  check('payee', s.payee_id, r.payees);
  // A split's own category is YNAB's placeholder for splits (not among the categories); it is not sent.
  if (!lines(s).length) check('category', s.category_id, r.categories);
  lines(s).forEach((x, i) => {
    check(`split line ${i + 1}'s payee`, x.payee_id, r.payees);
    check(`split line ${i + 1}'s category`, x.category_id, r.categories);
  });
  return out;
}

/** The accounts a transaction's state puts money in: its own, and a transfer's other account (its own or a line's). */
function accountsOf(r: BudgetReplica, s: State): string[] {
  const through = (payeeId: unknown, transferId: unknown) =>
    typeof transferId === 'string' ? transferId : typeof payeeId === 'string' ? r.payees.get(payeeId)?.transfer_account_id : undefined;
  return [s.account_id, through(s.payee_id, s.transfer_account_id), ...lines(s).map((x) => through(x.payee_id, x.transfer_account_id))].filter(
    (id): id is string => typeof id === 'string' && !!id,
  );
}

/** A notice for each closed account a write puts a transaction (or scheduled one) in, that it was not in before. */
export function closedAccountNotices(r: BudgetReplica, entities: readonly EntityChange[]): string[] {
  const closed = new Map<string, { name: string; what: string }>();
  for (const e of entities) {
    if ((e.kind !== 'transaction' && e.kind !== 'scheduled_transaction') || !e.after) continue;
    const was = e.before ? accountsOf(r, e.before) : [];
    for (const id of accountsOf(r, e.after)) {
      const a = r.accounts.get(id);
      if (a?.closed && !was.includes(id) && !closed.has(id)) closed.set(id, { name: a.name, what: e.kind.replace('_', ' ') });
    }
  }
  return [...closed.values()].map(
    (a) => `The account ${JSON.stringify(a.name)} is closed: YNAB takes the ${a.what} into it all the same (its balance changes, and it stays closed).`,
  );
}

/** Why a transaction cannot take a category, if it cannot: a split, in a tracking account, a transfer between budget accounts. */
export function noCategory(r: BudgetReplica, t: E.TransactionSummaryBase, split: boolean): string | undefined {
  if (split) return 'a split: its lines carry the categories (split_transaction changes them)';
  if (!(r.accounts.get(t.account_id)?.on_budget ?? false)) return 'in a tracking account, which has no categories';
  if (t.transfer_account_id && r.accounts.get(t.transfer_account_id)?.on_budget) return 'a transfer between budget accounts, which has no category';
  return undefined;
}
