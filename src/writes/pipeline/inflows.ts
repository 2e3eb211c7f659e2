/**
 * The inflow guard: a transaction made from a model's amount that brings money in from a payee
 * whose transactions have all been outflows (a shop only ever paid) is held, like a likely
 * duplicate (duplicates.ts), and nothing is written. Its sign was most likely guessed: "12,50"
 * for a purchase of -12,50 written as 12.50. The answer is `held: "inflow"` with each such item
 * (`inflow_candidates`) and one line that names the refund it may be ("If this is a refund from
 * Lidl, call again with allow_inflow: true; if it is a purchase, give amount -12.50").
 * `allow_inflow: true` writes it.
 *  - The payee: the payee_id, or the payee whose name the payee_name is but for case (YNAB
 *    resolves payee_name so). A new payee has no history and is not held.
 *  - Its transactions: the budget's live transactions with that payee (a split's own payee, not
 *    its lines'); held when at least one is an outflow and none an inflow. A transfer payee is
 *    never held: the sign is the transfer's direction.
 * One step of the write pipeline (pipeline.ts) for every plan that says which inflows it makes
 * (`inflows`): create_transactions and create_scheduled_transaction (their rows' `inflowGuard`).
 * Not the imports (import_statement, import_transactions): a bank gives the sign.
 */
import { milliunitsToDecimalString, minorDigits } from '../../api/money.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { Shown } from './entities.js';

/** A transaction a write would make with money coming in: where it is among the arguments, and its amount and payee. */
export interface NewInflow {
  /** Its place in a list (transactions[index]), or undefined for a write of one. */
  index?: number;
  amount: number;
  payee_id?: string | null;
  payee_name?: string | null;
}

/** The items of a request's body that bring money in: a `transactions` list's, or the one wrapped transaction's. */
export function inflowsIn(body: Record<string, unknown>): NewInflow[] {
  const item = (t: Record<string, unknown>, index?: number): NewInflow => ({
    index,
    amount: t.amount as number,
    payee_id: t.payee_id as string | null | undefined,
    payee_name: t.payee_name as string | null | undefined,
  });
  const list = Array.isArray(body.transactions) ? (body.transactions as Record<string, unknown>[]).map((t, i) => item(t, i)) : [];
  const one = Object.values(body).filter((v) => v && typeof v === 'object' && !Array.isArray(v)) as Record<string, unknown>[];
  return [...list, ...(list.length ? [] : one.map((t) => item(t)))].filter((t) => typeof t.amount === 'number' && t.amount > 0);
}

/** An amount as a decimal with the currency's digits (more only where the milliunits need them): -12500 → "-12.50". */
function decimalText(milliunits: number, digits: number): string {
  const [whole, fraction = ''] = milliunitsToDecimalString(milliunits).split('.');
  const kept = fraction.slice(0, digits) + fraction.slice(digits).replace(/0+$/, '');
  return kept ? `${whole}.${kept}` : whole!;
}

/** How many of each payee's transactions are outflows, and whether any is an inflow. */
function histories(r: BudgetReplica, ids: ReadonlySet<string>): Map<string, { outflows: number; inflows: number }> {
  const out = new Map<string, { outflows: number; inflows: number }>();
  for (const t of r.transactions.values()) {
    if (t.deleted || !t.payee_id || !ids.has(t.payee_id) || t.amount === 0) continue;
    const h = out.get(t.payee_id) ?? { outflows: 0, inflows: 0 };
    if (t.amount < 0) h.outflows++;
    else h.inflows++;
    out.set(t.payee_id, h);
  }
  return out;
}

/** The answer of a write held for inflows at payees only ever paid, or undefined when none is one. */
export function holdInflows(r: BudgetReplica, s: Shown, items: readonly NewInflow[], notices: readonly string[] = []): Record<string, unknown> | undefined {
  if (!items.length) return undefined;
  const payees = [...r.payees.values()].filter((p) => !p.deleted && !p.transfer_account_id);
  const byName = new Map(payees.map((p) => [p.name.trim().toLowerCase(), p]));
  const payeeOf = (t: NewInflow) =>
    t.payee_id ? payees.find((p) => p.id === t.payee_id) : t.payee_name ? byName.get(t.payee_name.trim().toLowerCase()) : undefined;
  const named = items.map((t) => ({ t, payee: payeeOf(t) })).filter((x) => x.payee);
  if (!named.length) return undefined;
  const history = histories(r, new Set(named.map((x) => x.payee!.id)));
  const held = named.flatMap(({ t, payee }) => {
    const h = history.get(payee!.id);
    if (!h || h.inflows || !h.outflows) return [];
    return [
      {
        ...(t.index !== undefined ? { index: t.index } : {}),
        payee_id: payee!.id,
        payee_name: payee!.name,
        amount: t.amount,
        amount_formatted: s.money(t.amount),
        outflows: h.outflows,
      },
    ];
  });
  if (!held.length) return undefined;
  const first = held[0]!;
  const name = JSON.stringify(first.payee_name);
  const where = first.index !== undefined ? `transactions[${first.index}] is an inflow` : 'an inflow';
  const more = held.length > 1 ? ` (and ${held.length - 1} more inflow${held.length > 2 ? 's' : ''} at payees only ever paid)` : '';
  const digits = minorDigits(r.summary.currency_format);
  return {
    held: 'inflow',
    inflow_candidates: held,
    message:
      `Nothing was created: ${where} of ${first.amount_formatted} from ${name}, whose ${first.outflows === 1 ? 'one transaction was an outflow' : `${first.outflows} transactions have all been outflows`}${more}. ` +
      `If this is a refund from ${first.payee_name}, call again with allow_inflow: true; if it is a purchase, give amount ${decimalText(-first.amount, digits)}.`,
    ...(notices.length ? { notices } : {}),
  };
}
