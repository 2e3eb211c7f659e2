/**
 * Everyday purchases that fill a month up to the requested transaction count: merchants picked
 * by weight, amounts in their usual range, some receipts split over several categories (lines
 * summing exactly to the total), memos on a fair share, and the odd income payout sized so
 * that, on average, payouts pay for the purchases (so a budget of 200,000 transactions still
 * balances). Every item makes exactly one record, which keeps the count exact.
 */
import type { AccountRec, CategoryRec, PayeeRec } from '../store/records.js';
import type { Merchant, PayWith } from './catalog.js';
import { datesIn, type MonthSlot, type Planned } from './history.js';
import type { DemoLine, Entry, Ledger } from './ledger.js';
import type { Random } from './random.js';

export interface FillContext {
  rng: Random;
  ledger: Ledger;
  merchants: readonly Merchant[];
  cat: Record<string, CategoryRec>;
  rta: CategoryRec;
  payee(name: string): PayeeRec;
  /** The account each way of paying uses ('mixed' picks among card, checking and cash). */
  accounts: Record<Exclude<PayWith, 'mixed'>, AccountRec>;
  /** Typical income payout, in milliunits. */
  payout: number;
  /** Called with each planned cash outflow (positive), e.g. to size the month's ATM top-up. */
  onCash?(amount: number): void;
}

const GENERIC_MEMOS = ['Receipt in the drawer', 'For the party', 'Used the coupon', 'Shared with Sam', 'Oops'];

export function fillMonth(f: FillContext, slot: MonthSlot, count: number): Planned[] {
  const { rng } = f;
  const items: Planned[] = [];
  const dates = datesIn(slot);
  for (let n = 0; n < count; n++) {
    const m = rng.weighted(f.merchants, (x) => x.weight);
    const date = rng.pick(dates);
    const memo = m.memos && rng.chance(0.3) ? rng.pick(m.memos) : rng.chance(0.08) ? rng.pick(GENERIC_MEMOS) : null;
    let entry: Entry;
    if (m.category === 'income') {
      const amount = rng.centsBetween((f.payout * 7) / 10, (f.payout * 13) / 10);
      entry = { date, account: f.accounts.checking, amount, payee: f.payee(m.name), category: f.rta, memo };
    } else {
      const account = payWith(f, m);
      const lines = m.split && rng.chance(m.splitChance ?? 0) ? splitLines(f, m) : undefined;
      const amount = lines ? lines.reduce((s, l) => s + l.amount, 0) : -rng.cents(m.min, m.max);
      if (account === f.accounts.cash) f.onCash?.(-amount);
      entry = { date, account, amount, payee: f.payee(m.name), category: f.cat[m.category], memo, lines };
    }
    items.push({ date, records: 1, run: () => f.ledger.post(entry) });
  }
  return items;
}

function payWith(f: FillContext, m: Merchant): AccountRec {
  if (m.pay !== 'mixed') return f.accounts[m.pay];
  const r = f.rng.next();
  return r < 0.55 ? f.accounts.card : r < 0.9 ? f.accounts.checking : f.accounts.cash;
}

/** A receipt split into its main category and one to three others; the lines sum to the total. */
function splitLines(f: FillContext, m: Merchant): DemoLine[] {
  const { rng, cat } = f;
  const parts = [...m.split!];
  const lines: DemoLine[] = [{ amount: -rng.cents(m.min, m.max), category: cat[m.category] }];
  for (let n = rng.int(1, Math.min(3, parts.length)); n > 0; n--) {
    const part = parts.splice(rng.int(0, parts.length - 1), 1)[0]!;
    lines.push({ amount: -rng.cents(part.min, part.max), category: cat[part.category], memo: rng.chance(0.2) ? 'From the same receipt' : null });
  }
  return lines;
}

const mean = (min: number, max: number) => (min + max) * 500; // milliunits

/**
 * What one purchase at a merchant spends on average, per category (split receipts included:
 * 1 to min(3, parts) extra lines, each part as likely as the others).
 */
function averageReceipt(m: Merchant): Map<string, number> {
  const out = new Map<string, number>([[m.category, mean(m.min, m.max)]]);
  if (m.split?.length) {
    const lines = (m.splitChance ?? 0) * ((1 + Math.min(3, m.split.length)) / 2);
    for (const p of m.split) out.set(p.category, (out.get(p.category) ?? 0) + (lines / m.split.length) * mean(p.min, p.max));
  }
  return out;
}

/** What `perMonth` everyday purchases spend in a month on average, per category key (milliunits). */
export function expectedSpending(merchants: readonly Merchant[], perMonth: number): Map<string, number> {
  const weight = merchants.reduce((sum, m) => sum + m.weight, 0);
  const out = new Map<string, number>();
  for (const m of merchants) {
    if (m.category === 'income') continue;
    for (const [key, amount] of averageReceipt(m)) out.set(key, (out.get(key) ?? 0) + (perMonth * m.weight * amount) / weight);
  }
  return out;
}

/**
 * The income payout that, at the merchants' weights, pays for their purchases on average (split
 * receipts included) with a tenth to spare, as a household living within its means.
 */
export function balancingPayout(merchants: readonly Merchant[]): number {
  let incomeWeight = 0;
  let total = 0;
  for (const m of merchants) {
    if (m.category === 'income') {
      incomeWeight += m.weight;
      continue;
    }
    for (const amount of averageReceipt(m).values()) total += m.weight * amount;
  }
  return incomeWeight ? Math.round((total * 1.1) / incomeWeight) : 0;
}
