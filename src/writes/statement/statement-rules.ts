/**
 * The house rules (src/rules/) at import_statement: a new row a rule matches (by its bank text,
 * the payee the budget knows for it, the account, the amount) gets that rule's payee (an existing
 * payee of that name, else a new one of it) and its category, before any payee or category the
 * history suggests; the preview names the rule for each field it set.
 */
import type * as E from '../../api/schemas/entities.js';
import { compileRules, outcomeFor } from '../../rules/match.js';
import type { RuleField } from '../../rules/types.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { payeeNamed } from '../rules/rule-changes.js';
import type { RowMatch } from './statement-match.js';
import type { RowPayee } from './statement-payees.js';

/** What the rules give a new row: its payee, its category, and the rule behind each. */
export interface RowRuled {
  payee?: RowPayee;
  category?: { id: string; name: string };
  by: Partial<Record<RuleField, string>>;
}

/** Built once per plan: what the rules give each new row (undefined when the budget has no rules). */
export async function statementRules(ctx: PlanContext, account: E.AccountBase): Promise<((m: RowMatch, found?: RowPayee) => RowRuled | undefined) | undefined> {
  const list = ctx.rules ? await ctx.rules.list(ctx.budgetId) : [];
  if (!list.length) return undefined;
  const r = ctx.replica;
  const compiled = compileRules(list);
  const named = payeeNamed(r);
  return (m, found) => {
    const o = outcomeFor(compiled, {
      text: m.row.payee,
      payee_id: found?.id ?? null,
      payee_name: found?.name ?? null,
      account_id: account.id,
      amount: m.row.amount,
    });
    const out: RowRuled = { by: {} };
    if (o.payee_name?.value) {
      const id = named(o.payee_name.value);
      const basis = `rule ${o.payee_name.rule_id}` as const;
      out.payee = id ? { id, name: r.payees.get(id)!.name, basis } : { name: o.payee_name.value.slice(0, 200), basis };
      out.by.payee_name = o.payee_name.rule_id;
    }
    const c = o.category_id?.value ? r.categories.get(o.category_id.value) : undefined;
    if (c && !c.deleted && account.on_budget) {
      out.category = { id: c.id, name: c.name };
      out.by.category_id = o.category_id!.rule_id;
    }
    return Object.keys(out.by).length ? out : undefined;
  };
}
