/**
 * What a reconcile's difference comes to, from its explanations (reconcile-explain.ts), all in
 * integer milliunits: explained (the explanations' effects, added), unexplained (difference −
 * explained), and what applying may do:
 *  - what applying clears leaves nothing: it reconciles, no adjustment whatever was asked;
 *  - explanations the user has to act on (rows to import, transactions the bank never had,
 *    amounts to fix) move the balance: nothing is reconciled and create_adjustment is refused,
 *    since an adjustment would hide them ("the difference is explained: …" when they account for
 *    all of it; else the part explained, and the adjustment that would be left once it is fixed);
 *  - otherwise what is left is unexplained: recorded as the adjustment with create_adjustment,
 *    stated with its arithmetic (difference − explained = adjustment), else not reconciled. The
 *    nearest candidates (explaining nothing exactly) are named before the adjustment is offered,
 *    and "nothing explains it" is said only where there are none;
 *  - an adjustment is never dated before the account's start (`start`, its starting balance):
 *    create_adjustment is refused there, and not offered.
 */
import type { Explanation } from './reconcile-explain.js';

export interface Verdict {
  explained: number;
  unexplained: number;
  /** "difference − explained = unexplained", in the budget's money. */
  arithmetic: string;
  /** The adjustment applying records (create_adjustment, and only what nothing explains). */
  adjustment: number;
  /** Why nothing is applied: the answer's message. Undefined: the preview may be confirmed. */
  stop?: string;
  /** create_adjustment asked where applying leaves nothing to adjust: why none is made. */
  notice?: string;
}

const byApplying = (e: Explanation) => e.kind === 'cleared_at_bank' || e.kind === 'uncleared_sum';
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** An explanation as a sentence says it: what, how much, what acts on it. */
function told(e: Explanation, money: (m: number) => string): string {
  const m = money(e.effect);
  switch (e.kind) {
    case 'cleared_at_bank':
      return `${plural(e.count, 'uncleared transaction')} the statement lists (${m}, cleared by applying)`;
    case 'uncleared_sum':
      return `${plural(e.count, 'uncleared transaction')} adding up to ${m} (cleared by applying)`;
    case 'missing_from_ynab':
      return `${plural(e.count, 'statement row')} missing from YNAB (${m} once entered: import_statement)`;
    case 'missing_from_statement':
      return `${plural(e.count, 'transaction')} the statement does not have (${m} once deleted or uncleared, if the bank never had ${e.count === 1 ? 'it' : 'them'})`;
    case 'amount_differs':
      return `${plural(e.count, 'amount')} the bank has otherwise (${m} once fixed to the bank's: update_transaction)`;
    case 'unsure_match':
      return `${plural(e.count, 'statement row')} that may be a transaction of another payee, or one of several (${m} once the right one is cleared)`;
    case 'possible_duplicate': {
      const t = e.transactions.find((x) => x.id === e.recommended.id)!;
      return `a transaction entered twice, by the look of it: delete ${e.recommended.which} (${t.payee ? `${t.payee as string}, ` : ''}${money(t.amount as number)} on ${t.date as string}; ${m} once deleted: delete_transaction)`;
    }
    case 'nearest':
      return `${plural(e.count, 'uncleared transaction')} near it: ${e.transactions.map((t) => `${money(t.amount as number)} on ${t.date as string}${t.payee ? ` (${t.payee as string})` : ''}, ${t.why === 'digits_swapped' ? 'two digits swapped' : `${money(t.off_by as number)} off`}`).join('; ')}`;
  }
}

export function verdict(
  difference: number,
  explanations: readonly Explanation[],
  createAdjustment: boolean,
  money: (m: number) => string,
  start?: { date: string; statementDate: string },
): Verdict {
  const total = (es: readonly Explanation[]) => es.reduce((n, e) => n + e.effect, 0);
  const explained = total(explanations);
  const unexplained = difference - explained;
  const signed = (m: number) => (m < 0 ? `(${money(m)})` : money(m));
  const arithmetic = `${money(difference)} - ${signed(explained)} = ${money(unexplained)}`;
  const out = { explained, unexplained, arithmetic, adjustment: 0 };
  const applied = explanations.filter(byApplying);
  const toFix = explanations.filter((e) => !byApplying(e) && e.effect !== 0);
  const left = difference - total(applied);
  // Listed in a sentence: those that move the balance (an uncleared transaction the bank lacks does not).
  const list = (es: readonly Explanation[]) =>
    es
      .filter((e) => e.effect !== 0)
      .map((e) => told(e, money))
      .join('; ');
  if (left === 0) return createAdjustment && difference !== 0 ? { ...out, notice: `No adjustment: the difference is explained: ${list(applied)}.` } : out;
  if (total(toFix) !== 0) {
    const what =
      unexplained === 0
        ? `the difference is explained: ${list(explanations)}`
        : `${money(explained)} of the ${money(difference)} difference is explained: ${list(explanations)}; the rest is not (difference - explained: ${arithmetic})`;
    const then =
      unexplained === 0
        ? 'Fix in YNAB what applying does not clear, then call again.'
        : `Fix in YNAB what applying does not clear, then call again: create_adjustment then records the ${money(unexplained)} left.`;
    return {
      ...out,
      stop: createAdjustment ? `create_adjustment refused: ${what}. An adjustment would hide that. ${then}` : `Not reconciled: ${what}. ${then}`,
    };
  }
  const near = explanations.find((e) => e.kind === 'nearest');
  const check = near ? `Check first the ${told(near, money)}. ` : '';
  const early = start && start.statementDate < start.date;
  if (createAdjustment && !early) return { ...out, adjustment: left, ...(near ? { notice: `${check.trim()} The adjustment records what they do not.` } : {}) };
  const why = applied.length
    ? `${list(applied)}; the rest is not (difference - explained: ${arithmetic})`
    : near
      ? `nothing explains it exactly (difference - explained: ${arithmetic})`
      : `nothing explains it (difference - explained: ${arithmetic})`;
  const head = createAdjustment ? 'create_adjustment refused' : 'Not reconciled';
  const then = early
    ? `An adjustment is not offered: ${start.statementDate} is before the account's start (its starting balance, ${start.date}), and one dated there would change months before the account existed. Fix the transactions in YNAB, or reconcile a statement dated ${start.date} or later.`
    : `Fix the transactions in YNAB (or import the statement), or call again with create_adjustment: true to record the ${money(left)} unexplained as an adjustment.`;
  return { ...out, stop: `${head}: the cleared balance differs from the statement by ${money(difference)}: ${why}. ${check}${then}` };
}
