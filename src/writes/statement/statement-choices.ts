/**
 * import_statement's new rows: the payee and category each is created with. A house rule's first
 * (statement-rules.ts); then the payee the budget knows for the bank's text (statement-payees.ts);
 * a cash withdrawal or a refund by their own rule (statement-cash.ts); else the category the
 * payee's history suggests (src/insights/review/suggest.ts): set where of high confidence, shown
 * as a `suggestion` where of medium, and where the evidence is weak or absent no category, the
 * preview saying so (a guess would read as the budget's own: "Electric" for a grocery store).
 */
import type * as E from '../../api/schemas/entities.js';
import { categorySuggester } from '../../insights/review/suggest.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { specialRows } from './statement-cash.js';
import type { RowMatch } from './statement-match.js';
import { rowPayees } from './statement-payees.js';
import type { RowRuled } from './statement-rules.js';

/** The new rows' payees and categories: a rule's first, then the budget's payee for the bank text and the history's category. */
export async function newRowChoices(ctx: PlanContext, account: E.AccountBase, fresh: RowMatch[]) {
  const suggest = account.on_budget ? categorySuggester(ctx.view) : undefined;
  const payeeOf = rowPayees(ctx.view);
  const payees = new Map(fresh.filter((m) => m.row.payee.trim()).map((m) => [m, payeeOf(m.row.payee)]));
  // A rule's payee and category come first; then every suggestion is shown, and only a
  // high-confidence one is set (the rest arrive uncategorized, for review_transactions).
  const ruledBy = (await ctx.rules.list(ctx.budgetId)).length ? await (await import('./statement-rules.js')).statementRules(ctx, account) : undefined;
  const byRule = new Map<RowMatch, RowRuled['by']>();
  const categories = new Map<RowMatch, { id: string; name: string } | undefined>();
  const suggested = new Map<RowMatch, Record<string, unknown>>();
  const special = account.on_budget ? specialRows(ctx.view, account) : undefined;
  for (const m of fresh) {
    const ruled = ruledBy?.(m, payees.get(m));
    if (ruled) byRule.set(m, ruled.by);
    if (ruled?.payee) payees.set(m, ruled.payee);
    if (ruled?.category) {
      categories.set(m, ruled.category);
      continue;
    }
    const p = payees.get(m);
    // A cash withdrawal or a refund: never a category by vote (statement-cash.ts).
    const odd = special?.(m, p?.id);
    if (odd) {
      categories.set(m, odd.kind === 'refund' ? odd.category : undefined);
      if (odd.suggestion) suggested.set(m, odd.suggestion);
      continue;
    }
    const s = suggest?.({
      payee_id: p?.id ?? null,
      payee_name: p?.name ?? null,
      import_payee_name: m.row.payee,
      amount: m.row.amount,
      account_id: account.id,
      date: m.row.date,
    });
    categories.set(m, s && s.confidence === 'high' ? { id: s.category_id, name: s.category } : undefined);
    if (s?.confidence === 'medium') suggested.set(m, { category: s.category, confidence: s.confidence });
    // Weak evidence abstains, and says so: a guess would read as the budget's own.
    else if (account.on_budget && s?.confidence !== 'high') suggested.set(m, { category: null, why: abstained(s) });
  }
  return { payees, byRule, categories, suggested };
}

/** Why a new row gets no category suggested: too little of the budget's history to go on. */
function abstained(s: { category: string; basis: string } | undefined): string {
  return s
    ? `no category suggested: the evidence is weak (${s.basis} for ${JSON.stringify(s.category)}); left uncategorized for review`
    : 'no category suggested: neither this payee nor a payee of a name like it has categorized history; left uncategorized for review';
}
