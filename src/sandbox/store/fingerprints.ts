/**
 * The fingerprints of a budget's computed entities (budget-store.ts refresh): what each one's value
 * is made of, hashed, so that an entity whose value moved in a write is stamped with that write's
 * knowledge. Every write recomputes them all.
 *
 * Most of them do not move in a write. A transaction dated this month leaves every earlier month as
 * it was, and most categories too. Yet each month's value was serialized and hashed again, with
 * the goal of each of its categories worked out again: half of a demo budget's write in the
 * sandbox (3.6 of 8.2 ms). In a burst of twenty writes on one sandbox, that was a queue of about
 * 250 ms, which showed as the hosted 20 x 50 load's slowest calls.
 *
 * FingerprintMemo keeps each month's and category's fingerprint beside the inputs it was made from.
 * When the inputs are equal, value for value, it gives the same fingerprint without serializing or
 * hashing. The fingerprint is a function of those inputs alone, so the answer is exactly the one a
 * fresh computation gives. Goals are a function of the category's goal (which a write stamps:
 * `knowledge`), its month's figures, the month and the currency's minor unit (goals.ts goalFigures).
 */
import { createHash } from 'node:crypto';
import type { CategoryFigures } from './goals.js';
import type { Derived, MonthFigures } from './derived.js';
import type { BudgetRec } from './records.js';

const hash = (value: string): string => createHash('sha1').update(value).digest('base64');

interface MonthEntry {
  figures: MonthFigures;
  fp: string;
}

interface CategoryEntry {
  month: string;
  figures: CategoryFigures | undefined;
  knowledge: number;
  /** The currency's decimal digits (its goal counts in whole minor units). */
  digits: number | undefined;
  fp: string;
}

const sameFigures = (a: CategoryFigures | undefined, b: CategoryFigures | undefined): boolean =>
  a === b || (!!a && !!b && a.budgeted === b.budgeted && a.activity === b.activity && a.balance === b.balance && a.carry === b.carry);

/** The same month values, and the same categories in the same order with the same figures. */
function sameMonth(a: MonthFigures, b: MonthFigures): boolean {
  if (a.note !== b.note || a.income !== b.income || a.budgeted !== b.budgeted || a.activity !== b.activity) return false;
  if (a.to_be_budgeted !== b.to_be_budgeted || a.age_of_money !== b.age_of_money || a.categories.size !== b.categories.size) return false;
  const other = b.categories.entries();
  for (const [id, f] of a.categories) {
    const [otherId, g] = other.next().value as [string, CategoryFigures];
    if (id !== otherId || !sameFigures(f, g)) return false;
  }
  return true;
}

export class FingerprintMemo {
  private months = new Map<string, MonthEntry>();
  private categories = new Map<string, CategoryEntry>();
  /** What every month's value also holds: each category's id and knowledge (and the unit its goals count in). */
  private shared: string | undefined;

  /** Each computed entity's key and fingerprint, as `computed` has it now. */
  *of(b: BudgetRec, d: Derived): Generator<[string, string]> {
    for (const [id, bal] of d.balances) yield [`account:${id}`, hash(`${bal.balance}|${bal.cleared}|${bal.uncleared}`)];
    const current = d.monthIndex.get(d.currentMonth);
    const categoryVersions: string[] = [];
    const categories = new Map<string, CategoryEntry>();
    const digits = b.currency_format?.decimal_digits;
    for (const c of b.categories.values()) {
      const f = current?.categories.get(c.id);
      let entry = this.categories.get(c.id);
      if (!entry || entry.month !== d.currentMonth || entry.knowledge !== c.knowledge || entry.digits !== digits || !sameFigures(entry.figures, f)) {
        const fp = hash(JSON.stringify([f, d.goal(c, d.currentMonth)]));
        entry = { month: d.currentMonth, figures: f && { ...f }, knowledge: c.knowledge, digits, fp };
      }
      categories.set(c.id, entry);
      yield [`category:${c.id}`, entry.fp];
      categoryVersions.push(`${c.id}:${c.knowledge}`);
    }
    this.categories = categories;
    const categoryPart = categoryVersions.join(',');
    const shared = `${digits}\n${categoryPart}`;
    const known = shared === this.shared ? this.months : new Map<string, MonthEntry>();
    const months = new Map<string, MonthEntry>();
    for (const m of d.months) {
      let entry = known.get(m.month);
      if (!entry || !sameMonth(entry.figures, m)) entry = { figures: copyOf(m), fp: hash(monthValue(b, d, m, categoryPart)) };
      months.set(m.month, entry);
      yield [`month:${m.month}`, entry.fp];
    }
    this.months = months;
    this.shared = shared;
    for (const [id, next] of d.dateNext) yield [`scheduled:${id}`, hash(next)];
  }
}

/** A month's figures as they are now (the computed ones are not the memo's to keep: they may be shared). */
function copyOf(m: MonthFigures): MonthFigures {
  return { ...m, categories: new Map([...m.categories].map(([id, f]) => [id, { ...f }])) };
}

/** A month's value: its figures and each category's with its goal; category records (names, goals) appear inside every month, so their versions count too. */
function monthValue(b: BudgetRec, d: Derived, m: MonthFigures, categoryPart: string): string {
  const parts = [m.note, m.income, m.budgeted, m.activity, m.to_be_budgeted, m.age_of_money];
  const cats = [...m.categories].map(([id, f]) => {
    const c = b.categories.get(id);
    return [id, f.budgeted, f.activity, f.balance, c ? d.goal(c, m.month) : null];
  });
  return JSON.stringify([parts, cats, categoryPart]);
}
