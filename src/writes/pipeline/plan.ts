/**
 * A write described before it is made: which budget, the tool and its canonical arguments (what
 * a confirm token binds), what kinds of write it makes (policy.ts decides whether it waits for
 * confirmation), and each entity it touches with its state now and after. The same plan gives
 * the preview a person confirms, the binding of the confirm token, and the before-states the
 * undo journal records. What was actually applied is journaled as a Draft.
 */
import { changedFields, readable, type EntityChange, type Shown } from './entities.js';
import { whyConfirm, type WriteKind, type WriteMode } from './policy.js';

export interface Plan {
  tool: string;
  budgetId: string;
  /** The tool's arguments as the API will get them (ids, milliunits), without confirm_token. */
  args: Record<string, unknown>;
  /** What the change does, in one sentence. */
  summary: string;
  kinds: WriteKind[];
  /** `before`: as the budget is now; `after`: as the change would leave it. */
  entities: EntityChange[];
  /** More members of the preview (counts that did not hold, transactions left out and why). */
  details?: Record<string, unknown>;
  /** How many entities the preview lists in `changes` (default PREVIEW_ROWS); 0 where `details` lists them its own, shorter way. */
  listed?: number;
  notices?: string[];
}

/** What an applied change is journaled as. */
export interface Draft {
  summary: string;
  entities: EntityChange[];
  not_undoable?: string;
  undoes?: string;
  /** Payees the change made (by a payee name sent): YNAB's API has no delete for them, so an undo leaves them. */
  payees_created?: string[];
}

/** Entities shown in one preview at most; the rest are counted. */
export const PREVIEW_ROWS = 50;

/**
 * A preview's JSON at most, in characters: its rows are listed while they fit, the rest counted,
 * so that with what every answer carries (the budget, the data notice) it stays within 8 KB
 * however many entities the change touches (an undo of a reconciliation touches hundreds).
 */
export const PREVIEW_CHARS = 7000;

/**
 * The first `rows` whose JSON, added to `used` characters already in the answer, stays within
 * `max` characters: what an answer lists when the rest are counted (previews, an undo's result).
 */
export function rowsWithin<T>(rows: readonly T[], max: number, used = 0): T[] {
  let size = used;
  const out: T[] = [];
  for (const r of rows) {
    size += JSON.stringify(r).length + 1;
    if (size > max) break;
    out.push(r);
  }
  return out;
}

/** A preview row: the entity now, and what the change sets (all of it for a create). */
export function previewRow(e: EntityChange, s: Shown): Record<string, unknown> {
  let after: Record<string, unknown> | null = null;
  if (e.after && !e.before) after = readable(e.kind, e.after, s);
  else if (e.after && e.before) {
    const changed = new Set(changedFields(e.kind, e.before, e.after));
    for (const k of Object.keys(e.after)) if (!(k in e.before)) changed.add(k);
    after = readable(e.kind, Object.fromEntries([...changed].map((k) => [k, e.after![k]])), s);
  }
  return { action: e.action, entity: e.kind, id: e.id, ...(e.linked ? { linked: true } : {}), current: readable(e.kind, e.before, s), after };
}

export interface PreviewOptions {
  mode: WriteMode;
  token: string;
  expiresAt: string;
  /** The user answered the client's confirmation dialog with this (decline, cancel). */
  declined?: string;
  /** The client's dialog could not be shown or answered: why (the user said nothing). */
  dialogFailed?: string;
}

/** The answer of a held write: nothing changed, what would change, and how to confirm. */
export function previewAnswer(plan: Plan, s: Shown, o: PreviewOptions): Record<string, unknown> {
  const listed = plan.listed ?? PREVIEW_ROWS;
  const notices: string[] = [];
  if (o.declined) notices.push(`The user did not confirm in the client's dialog (${o.declined}); do not apply this unless they ask again.`);
  if (o.dialogFailed)
    notices.push(
      `The client's confirmation dialog could not be shown or answered (${o.dialogFailed}), so nothing was asked: show the user this preview yourself.`,
    );
  const answer = (rows: Record<string, unknown>[], more: string[]) => ({
    preview: true,
    summary: plan.summary,
    ...plan.details,
    count: plan.entities.filter((e) => !e.linked).length,
    ...(listed > 0 ? { changes: rows } : {}),
    confirm_token: o.token,
    expires_at: o.expiresAt,
    message: `Nothing was changed: ${whyConfirm(o.mode, plan.kinds)}. Show the user this preview (summary and changes); only if they agree, call ${plan.tool} again with the same arguments plus confirm_token (valid once, until ${o.expiresAt}).`,
    ...(plan.notices?.length || more.length || notices.length ? { notices: [...(plan.notices ?? []), ...more, ...notices] } : {}),
  });
  // The first rows that fit (the notice that the rest are counted included), at most `listed`.
  const left = (n: number) =>
    n < plan.entities.length && listed > 0
      ? [`Only the first ${n} of ${plan.entities.length} changes are listed; all ${plan.entities.length} are confirmed together.`]
      : [];
  const candidates = plan.entities.slice(0, listed).map((e) => previewRow(e, s));
  const rows = rowsWithin(candidates, PREVIEW_CHARS, JSON.stringify(answer([], left(0))).length);
  return answer(rows, left(rows.length));
}

/** What the client's confirmation dialog asks: the summary and the first changes (budget text, escaped where it is shown). */
export interface Question {
  summary: string;
  changes: { action: string; what: string }[];
  /** Changes not listed. */
  more: number;
}

/** The dialog's question about a plan: its first 10 changes, each described. */
export function dialogQuestion(plan: Plan, describe: (e: EntityChange) => string): Question {
  return {
    summary: plan.summary,
    changes: plan.entities
      .filter((e) => !e.linked)
      .slice(0, 10)
      .map((e) => ({ action: e.action, what: describe(e) })),
    more: Math.max(0, plan.entities.length - 10),
  };
}

/** The dialog's text, one line each; `escape` makes budget text safe to show, line by line (the dialog's own line breaks stay). */
export function dialogText(q: Question, escape: (text: string) => string): string {
  const lines = q.changes.map((c) => `- ${c.action} ${escape(c.what)}`);
  const more = q.more ? `\n(and ${q.more} more)` : '';
  return `${escape(q.summary)}\n${lines.join('\n')}${more}\nApply this change?`;
}
