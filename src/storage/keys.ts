/**
 * The names of everything kept in a state store, declared once. The file store maps a key to the
 * file of the same relative path under the state directory, so these names are also the state
 * directory's layout (which `status` and `logout` read, and which older versions wrote):
 *
 *   quota/<token key>.json                 the request ledger of a token (src/quota)
 *   replicas/<identity>/<budget>.replica   a saved, encrypted replica (src/sync/persist.ts)
 *   replicas/<identity>/aliases.json       which budget `last-used` / `default` named
 *   journal/<identity>/<budget>.json       the create records of a budget (src/sync/create-records.ts; the
 *                                          folder keeps its first name, for the files already written)
 *   journal/<identity>/<budget>.written    the knowledge our last write reached (hosted mode only)
 *   changes/<identity>/<budget>/<id>.change  one applied change, sealed: the undo journal (src/writes/undo-journal.ts)
 *   confirm/<identity>/<budget>/<hash>.token a confirm token's record, sealed, with a ttl (src/writes/confirm-tokens.ts)
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
export const journalPrefix = (identity: string): string => `journal/${segment(identity)}/`;
export const journalKey = (identity: string, budgetId: string): string => `${journalPrefix(identity)}${segment(budgetId)}.json`;
export const writtenKey = (identity: string, budgetId: string): string => `${journalPrefix(identity)}${segment(budgetId)}.written`;
export const changesPrefix = (identity: string, budgetId: string): string => `changes/${segment(identity)}/${segment(budgetId)}/`;
export const changeKey = (identity: string, budgetId: string, changeId: string): string => `${changesPrefix(identity, budgetId)}${segment(changeId)}.change`;
export const confirmPrefix = (identity: string, budgetId: string): string => `confirm/${segment(identity)}/${segment(budgetId)}/`;
export const confirmKey = (identity: string, budgetId: string, tokenHash: string): string => `${confirmPrefix(identity, budgetId)}${segment(tokenHash)}.token`;

/** What a key holds, for messages ("the request ledger /…/quota/ab12.json cannot be read"). */
export function labelOf(key: string): string {
  switch (key.split('/')[0]) {
    case 'quota':
      return 'the request ledger';
    case 'replicas':
      return key.endsWith('.replica') ? 'the saved copy of a budget' : 'the list of saved copies';
    case 'journal':
      return 'the write journal';
    case 'changes':
      return 'the undo journal';
    case 'confirm':
      return 'a confirm token';
    case 'locks':
      return 'the lock';
    default:
      return 'the state file';
  }
}
