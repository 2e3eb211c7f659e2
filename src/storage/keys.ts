/**
 * The names of everything kept in a state store, declared once. The file store maps a key to the
 * file of the same relative path under the state directory, so these names are also the state
 * directory's layout (which `status` and `logout` read, and which older versions wrote):
 *
 *   quota/<token key>.json                 the request ledger of a token (src/quota)
 *   replicas/<identity>/<budget>.replica   a saved, encrypted replica (src/sync/persist.ts)
 *   replicas/<identity>/aliases.json       which budget `last-used` / `default` named
 *   replicas/<identity>/session-budget.json hosted mode: the user's default budget for now (src/mcp/state/session-budget.ts)
 *   replicas/<identity>/<budget>.feed      the last syncs' changes, sealed (hosted mode only; src/sync/replica-feed.ts)
 *   journal/<identity>/<budget>.json       the create records of a budget (src/sync/create-records.ts; the
 *                                          folder keeps its first name, for the files already written)
 *   journal/<identity>/<budget>.written    the knowledge our last write reached (hosted mode only)
 *   changes/<identity>/<budget>/<id>.change  one applied change, sealed: the undo journal (src/writes/pipeline/undo-journal.ts)
 *   changes/<identity>/<budget>.ids       the ids of those changes, a JSON list (src/storage/id-list.ts)
 *   confirm/<identity>/<budget>/<hash>.token a confirm token's record, sealed, with a ttl (src/writes/pipeline/confirm-tokens.ts)
 *   rules/<identity>/<budget>.json         the budget's house rules, in order (src/rules/store.ts)
 *   reconciled/<identity>/<budget>.json    when this server last reconciled each account (src/sync/reconciled.ts)
 *   events/<identity>/<budget>.log         a budget's alert occurrences, sealed (src/events/log.ts); .watch: the
 *                                          interval watcher's lease (src/events/watcher-lease.ts)
 *   events/<identity>/watch.due            hosted mode: when the user's watched budgets are next due (src/hosted/watch-schedule.ts)
 *   events/<identity>/webhooks/<id>.sub    a webhook subscription, sealed; webhooks.ids: their ids (src/events/webhook-ids.ts)
 *   locks/<name>.lock                      cross-process locks (withLock)
 */

/** A key segment: letters, digits, '-', '_' and '.', not starting with '.' (no '..', no hidden files). */
const SEGMENT = /^[0-9A-Za-z_-][0-9A-Za-z._-]{0,127}$/;

/** Suffixes the file store uses for its own temp files and lock directories; no key may end so. */
const RESERVED = /\.(tmp|lock)$/;

/** Throws unless `key` is a well-formed key: '/'-separated segments, nothing that could leave the store. */
export function checkKey(key: string): string {
  const parts = key.split('/');
  if (key.length > 512 || parts.some((p) => !SEGMENT.test(p)) || RESERVED.test(key)) {
    throw new TypeError(`not a valid state key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** Any text as one safe segment (ids from the API are already safe; this keeps it so). */
export function segment(text: string): string {
  const cleaned = text.replace(/[^0-9a-zA-Z-]/g, '_');
  return cleaned.length ? cleaned.slice(0, 120) : '_';
}

export const ledgerKey = (tokenKey: string): string => `quota/${segment(tokenKey)}.json`;
export const replicaPrefix = (identity: string): string => `replicas/${segment(identity)}/`;
export const replicaKey = (identity: string, budgetId: string): string => `${replicaPrefix(identity)}${segment(budgetId)}.replica`;
export const aliasesKey = (identity: string): string => `${replicaPrefix(identity)}aliases.json`;
export const sessionBudgetKey = (identity: string): string => `${replicaPrefix(identity)}session-budget.json`;
export const replicaFeedKey = (identity: string, budgetId: string): string => `${replicaPrefix(identity)}${segment(budgetId)}.feed`;
export const journalPrefix = (identity: string): string => `journal/${segment(identity)}/`;
export const journalKey = (identity: string, budgetId: string): string => `${journalPrefix(identity)}${segment(budgetId)}.json`;
export const writtenKey = (identity: string, budgetId: string): string => `${journalPrefix(identity)}${segment(budgetId)}.written`;
export const changesPrefix = (identity: string, budgetId: string): string => `changes/${segment(identity)}/${segment(budgetId)}/`;
export const changeKey = (identity: string, budgetId: string, changeId: string): string => `${changesPrefix(identity, budgetId)}${segment(changeId)}.change`;
export const confirmPrefix = (identity: string, budgetId: string): string => `confirm/${segment(identity)}/${segment(budgetId)}/`;
export const rulesPrefix = (identity: string): string => `rules/${segment(identity)}/`;
export const rulesKey = (identity: string, budgetId: string): string => `${rulesPrefix(identity)}${segment(budgetId)}.json`;
export const reconciledKey = (identity: string, budgetId: string): string => `reconciled/${segment(identity)}/${segment(budgetId)}.json`;
export const confirmKey = (identity: string, budgetId: string, tokenHash: string): string => `${confirmPrefix(identity, budgetId)}${segment(tokenHash)}.token`;

/** What a key holds, for messages ("the request ledger /…/quota/ab12.json cannot be read"). */
export function labelOf(key: string): string {
  switch (key.split('/')[0]) {
    case 'quota':
      return 'the request ledger';
    case 'replicas':
      return key.endsWith('.replica')
        ? 'the saved copy of a budget'
        : key.endsWith('.feed')
          ? 'the recent changes of a saved copy'
          : key.endsWith('session-budget.json')
            ? 'the default budget of the session'
            : 'the list of saved copies';
    case 'journal':
      return 'the write journal';
    case 'changes':
      return 'the undo journal';
    case 'confirm':
      return 'a confirm token';
    case 'rules':
      return 'the rules of a budget';
    case 'reconciled':
      return "the accounts' reconciliation dates";
    case 'locks':
      return 'the lock';
    default:
      return 'the state file';
  }
}

/**
 * Redis Cluster only: what belongs to one user shares a hash tag, so it is in one slot, and a
 * script or transaction over several of a user's keys (a create record and its written mark, a
 * change and its budget's journal) is possible. The tag is the user's identity segment, wrapped in
 * braces where it stands: `changes/{<identity>}/<budget>/<id>.change`. Per user rather than per
 * user and budget, because the grant and the cached answers are per user and go with the rest.
 * Keys that name no user (oauth records, ledgers, locks, sign-ins) are always touched alone and
 * keep their names. A single Redis keeps the untagged names (its data stays where it is).
 */
const USER_FAMILIES = new Set(['replicas', 'journal', 'changes', 'confirm', 'answers', 'grants', 'rules', 'reconciled', 'events', 'alerts']);
/** A family, then the identity up to the first '/' or '.' (identities have neither), then the rest. */
const USER_KEY = /^([a-z]+)\/([^/.]+)([/.].*)?$/;

/** The Redis Cluster name of a key (or of a complete key prefix such as `changes/<id>/`). */
export function clusterName(key: string): string {
  const m = USER_KEY.exec(key);
  if (!m || !USER_FAMILIES.has(m[1]!) || m[3] === undefined) return key;
  return `${m[1]}/{${m[2]}}${m[3]}`;
}

/** A key back from its Redis Cluster name (no key segment holds a brace, so this is exact). */
export function keyOfClusterName(name: string): string {
  return name.replace(/[{}]/g, '');
}

/**
 * The SCAN pattern (before glob escaping of the text) for keys starting with `prefix` in a
 * cluster: a prefix that stops inside a user's identity (`grants/ab`) must still match the braced
 * names, so the brace is opened and the rest matched by the pattern's `*`.
 */
export function clusterPrefix(prefix: string): string {
  const tagged = clusterName(prefix);
  if (tagged !== prefix) return tagged;
  const m = /^([a-z]+)\/([^/.]*)$/.exec(prefix);
  return m && USER_FAMILIES.has(m[1]!) && m[2] !== '' ? `${m[1]}/{${m[2]}` : prefix;
}
