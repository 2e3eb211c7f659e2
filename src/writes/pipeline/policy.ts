/**
 * Which writes answer with a preview (and a confirm_token) before anything changes, by
 * `--writes` mode:
 *  - always (direct and confirm): deletes, updates of more than 5 transactions at once, splits
 *    (a first split, whichever tool makes it, and split rewrites), undo, writes whose expected count does not hold (or, by filter, is not given), a bank statement's import or
 *    an account's reconciliation (many rows at once, matched by this server's judgement), rules
 *    applied to the past (apply_rules), fund_targets (up to 60 categories at once), a payees' merge
 *    (merge_payees), a
 *    move of money that would leave its source category overspent (unless allow_overspend), and
 *    money filed under a hidden category (hidden-categories.ts);
 *  - confirm: creates and single updates too;
 *  - off: nothing is written (the server is read-only, its write tools are not offered).
 * A plan says what kinds of write it makes; this decides.
 */

/**
 * How writes are let through:
 *  - direct (the default): deletes, bulk updates of more than 5 transactions, splits (first
 *    ones too) and split rewrites, undo, writes whose expected count does not hold, fund_targets and overspending moves answer
 *    with a preview first;
 *  - confirm: creates and single updates too;
 *  - off: read-only, no write tools.
 */
export const WRITE_MODES = ['direct', 'confirm', 'off'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

export type WriteKind =
  | 'create'
  | 'update'
  | 'delete'
  | 'bulk'
  | 'split'
  | 'undo'
  | 'count'
  | 'statement'
  | 'overspend'
  | 'rules'
  | 'merge'
  | 'targets'
  | 'hidden'
  | 'filter'
  | 'rehearsal';

/** More transactions than this in one update is a bulk update. */
export const BULK_LIMIT = 5;

const ALWAYS: ReadonlySet<WriteKind> = new Set([
  'delete',
  'bulk',
  'split',
  'undo',
  'count',
  'statement',
  'overspend',
  'rules',
  'merge',
  'targets',
  'hidden',
  'filter',
  'rehearsal',
]);

export function mustConfirm(mode: WriteMode, kinds: readonly WriteKind[]): boolean {
  if (kinds.some((k) => ALWAYS.has(k))) return true;
  return mode === 'confirm' && kinds.length > 0;
}

/** Why a write waits for confirmation, in words for the preview. */
export function whyConfirm(mode: WriteMode, kinds: readonly WriteKind[]): string {
  const reasons: Record<WriteKind, string> = {
    delete: 'deletes are confirmed first',
    bulk: `updates of more than ${BULK_LIMIT} transactions are confirmed first`,
    split: 'a first split and split rewrites are confirmed first',
    undo: 'undoing is confirmed first',
    count: 'the expected count does not hold',
    filter: 'a write by filter without expected_count is confirmed first',
    statement: 'statement imports and reconciliations are confirmed first',
    overspend: 'a move that leaves its source category overspent is confirmed first (allow_overspend: true moves it without asking)',
    rules: 'applying rules to transactions already there is confirmed first',
    merge: "merging payees moves a payee's whole history and is confirmed first",
    targets: 'funding targets (up to 60 categories at once) is confirmed first',
    hidden: 'filing money under a hidden category is confirmed first',
    rehearsal: 'applying a rehearsal is confirmed first',
    create: 'this server confirms every change (--writes confirm)',
    update: 'this server confirms every change (--writes confirm)',
  };
  const why = [...new Set(kinds.filter((k) => ALWAYS.has(k) || mode === 'confirm').map((k) => reasons[k]))];
  return why.join('; ');
}

/** Whether a tool that makes these kinds of write can be held in this mode (it then takes confirm_token). */
export function canHold(mode: WriteMode, kinds: readonly WriteKind[]): boolean {
  return mode !== 'off' && mustConfirm(mode, kinds);
}

/** Said in every tool that may answer with a preview (the flow in full is in the server's instructions). */
export const PREVIEW_HINT = 'May preview: confirm only if user agrees.';

/** The confirm flow as the server's instructions say it, once, rather than in every write tool. */
export const CONFIRM_FLOW =
  'Some writes (deletes, more than 5 transactions, split_transaction (a first split too) and a first split through update_transaction(s), undo, an expected_count that does not hold (or a filter write without one), statement imports, reconciliations, apply_rules, fund_targets, merge_payees, a move_money that overspends its source unless allow_overspend, money filed under a hidden category; every write with --writes confirm) first answer with a preview and a confirm_token and change nothing: show the user the preview, and only if they agree, call the same tool with the same arguments plus confirm_token (valid 5 minutes, once). ' +
  'A create that looks like a transaction already there is held with duplicate_candidates; allow_duplicate: true creates it anyway. A payee_name close to an existing payee is held with payee_candidates; allow_new_payee: true makes the new payee. An inflow from a payee only ever paid is held (held: "inflow"); only for a refund, allow_inflow: true. Every change answers with a change_id; undo_change undoes it.';
