/**
 * The house rules at create_transactions: a `payee_name` an assistant sends that a rename rule
 * matches (its text, the account, the amount) is sent as the rule's payee instead, and the answer
 * says so. Only renames: a create's category, memo and flag are what the assistant chose. A
 * transaction given by payee_id is left as it is.
 */
import type { CallArgs } from '../../api/client/client.js';
import { compileRules, outcomeFor } from '../../rules/match.js';
import { foldText } from '../../shared/text.js';
import type { RuleChange, RulesAccess } from './rule-changes.js';

type Item = Record<string, any>;

/** The request with its payee names renamed, what to say, and the rules that renamed them (for their counts). */
export interface Renamed {
  call: CallArgs;
  notices: string[];
  by: RuleChange['by'][];
}

export async function renameByRules(rules: RulesAccess | undefined, budgetId: string, call: CallArgs): Promise<Renamed> {
  const body = (call.body ?? {}) as Item;
  const list: Item[] | undefined = body.transactions ?? (body.transaction ? [body.transaction] : undefined);
  const named = list?.some((t) => typeof t?.payee_name === 'string' && !t.payee_id);
  const all = named && rules ? await rules.list(budgetId) : [];
  if (!all.length || !list) return { call, notices: [], by: [] };
  const compiled = compileRules(all);
  const notices: string[] = [];
  const by: RuleChange['by'][] = [];
  const items = list.map((t, i) => {
    if (typeof t?.payee_name !== 'string' || t.payee_id) return t;
    const o = outcomeFor(compiled, { text: t.payee_name, payee_name: t.payee_name, account_id: t.account_id, amount: t.amount ?? 0 });
    const to = o.payee_name?.value;
    if (!to || foldText(to).trim() === foldText(t.payee_name).trim()) return t;
    notices.push(
      `${list.length > 1 ? `transactions[${i}]: ` : ''}payee_name ${JSON.stringify(t.payee_name)} was sent as ${JSON.stringify(to)} (rule ${o.payee_name!.rule_id}).`,
    );
    by.push({ payee_name: o.payee_name!.rule_id });
    return { ...t, payee_name: to };
  });
  if (!by.length) return { call, notices: [], by: [] };
  return { call: { ...call, body: body.transactions ? { ...body, transactions: items } : { ...body, transaction: items[0] } }, notices, by };
}
