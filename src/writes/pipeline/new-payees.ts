/**
 * The new-payee guard: a `payee_name` that no payee of the budget has makes a new payee in YNAB.
 * When it is a near miss of a payee the budget has (the same but for case, accents, spacing or
 * punctuation, or a typing slip: nearName, ../shared/text.ts), or extends or shortens one's name
 * ("Costco Wholesale" beside "Costco": extendsName), the write is held, like a likely
 * duplicate (duplicates.ts), and nothing is written: the answer is `held: "new_payee"` with each
 * name and the payees it is close to. `allow_new_payee: true` writes it anyway.
 *  - A name that is a payee's name but for case is that payee: YNAB resolves payee_name so, and
 *    it goes through as given.
 *  - A transfer payee's name ("Transfer : Savings") is never resolved by payee_name (YNAB makes a
 *    new payee of it): it is held too, naming the transfer payee, whose payee_id makes a transfer.
 *  - A payee_name beside a payee_id is ignored by YNAB, and here.
 * One step of the write pipeline (pipeline.ts) for every plan that says which payee names it
 * sends (`payeeNames`): create_transactions, update_transaction(s), the scheduled creates and
 * updates (their rows' `newPayees`), split_transaction's lines.
 */
import { closest, extendsName, nearName } from '../../shared/text.js';
import type { BudgetReplica } from '../../sync/replica.js';

/** A payee name a write sends: where (the argument's path) and the name. */
export interface PayeeName {
  path: string;
  name: string;
}

/**
 * The payee names in a request's body (or a task's lines): every `payee_name` not beside a
 * `payee_id`, nested lines included. `path` prefixes each path; a body's one wrapper object
 * (`transaction`, `scheduled_transaction`) is left out of it, as the tool's arguments flatten it.
 */
export function payeeNamesIn(node: unknown, path = ''): PayeeName[] {
  if (Array.isArray(node)) return node.flatMap((x, i) => payeeNamesIn(x, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const o = node as Record<string, unknown>;
  const out: PayeeName[] = [];
  if (typeof o.payee_name === 'string' && o.payee_name.trim() && !o.payee_id)
    out.push({ path: path ? `${path}.payee_name` : 'payee_name', name: o.payee_name });
  for (const [k, v] of Object.entries(o)) {
    if (!v || typeof v !== 'object') continue;
    const flat = !path && !Array.isArray(v) && Object.keys(o).length === 1;
    out.push(...payeeNamesIn(v, flat ? '' : path ? `${path}.${k}` : k));
  }
  return out;
}

/** The answer of a write held for near-miss payee names, or undefined when none is one. */
export function holdNewPayees(r: BudgetReplica, names: readonly PayeeName[]): Record<string, unknown> | undefined {
  if (!names.length) return undefined;
  const payees = [...r.payees.values()].filter((p) => !p.deleted);
  const known = new Set(payees.filter((p) => !p.transfer_account_id).map((p) => p.name.trim().toLowerCase()));
  const held: { path: string; payee_name: string; candidates: { id: string; name: string }[] }[] = [];
  for (const n of names) {
    if (known.has(n.name.trim().toLowerCase())) continue;
    const close = payees.filter((p) =>
      p.transfer_account_id
        ? p.name.trim().toLowerCase() === n.name.trim().toLowerCase() || nearName(n.name, p.name)
        : nearName(n.name, p.name) || extendsName(n.name, p.name),
    );
    if (close.length) held.push({ path: n.path, payee_name: n.name, candidates: closest(close, n.name).map((p) => ({ id: p.id, name: p.name })) });
  }
  if (!held.length) return undefined;
  const first = held[0]!;
  const said = `${first.path} ${JSON.stringify(first.payee_name)} is no payee of this budget, but close to ${first.candidates.map((c) => JSON.stringify(c.name)).join(', ')}`;
  return {
    held: 'new_payee',
    payee_candidates: held,
    message: `Nothing was written: ${said}${held.length > 1 ? ` (and ${held.length - 1} more name${held.length > 2 ? 's' : ''})` : ''}. If the user means an existing payee, give its payee_id; if they mean a new payee, call again with allow_new_payee: true.`,
  };
}
