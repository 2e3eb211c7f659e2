/**
 * credit_cards: every open card at a glance, YNAB's way (issue 58 item 6). For each card, what it
 * owes, what its payment category holds, and the difference: short (the category holds less than
 * the card owes) or extra (more), and why a card is short: this month's credit overspending on
 * it (spending in categories that had no money for it) and, the rest, debt carried from before
 * (an opening balance, or overspending of months gone by). Then the totals across the cards.
 * The figures are needs_attention's card coverage (../attention/card-coverage.ts), computed once
 * for both. Lines of credit only when asked for: "what do we owe on our cards" is not a home
 * equity line's balance; the answer names those it left out. Every row gives every figure, zero
 * too, so a card that is neither short nor extra says so.
 */
import * as z from 'zod';
import { sumMilliunits } from '../../api/money.js';
import { DETAIL_ARG } from '../core/args.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';
import { cardStates, type Coverage } from '../attention/card-coverage.js';

export const CREDIT_CARDS_INPUT = {
  include_lines_of_credit: z.boolean().optional().describe('Lines of credit too.'),
  ...DETAIL_ARG,
};

/** The figures of a card and of the totals, in the order they are given. */
const FIGURES = ['owed', 'payment_available', 'shortfall', 'extra', 'overspent', 'carried'] as const;
type Figures = Record<(typeof FIGURES)[number], number>;

/** A card's figures in milliunits. */
function figuresOf(c: Coverage): Figures {
  const owed = Math.max(0, -c.account.balance);
  const short = Math.max(0, c.shortfall);
  // Why short: this month's overspending charged to the card (what of it the shortfall holds), the rest carried.
  const overspent = Math.min(sumMilliunits(c.overspent.map((o) => o.amount)), short);
  return { owed, payment_available: c.available, shortfall: short, extra: Math.max(0, -c.shortfall), overspent, carried: c.carried };
}

/** Each figure in milliunits with its text beside it. */
function written(ctx: InsightContext, f: Figures): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const k of FIGURES) Object.assign(out, ctx.money(k, f[k]));
  return out;
}

function row(ctx: InsightContext, c: Coverage, full: boolean): Record<string, unknown> {
  const base = { ...(full ? { id: c.account.id } : {}), name: c.account.name, ...written(ctx, figuresOf(c)) };
  if (!full) return base;
  return {
    ...base,
    type: c.account.type,
    ...ctx.money('balance', c.account.balance),
    payment_category: c.paymentName,
    overspent_by_category: c.overspent.map((o) => ({ category: o.category, ...ctx.money('amount', o.amount) })),
    cover_with_move_money: c.moves,
  };
}

/** The totals across the cards listed: the same figures, summed. */
function totals(ctx: InsightContext, cards: Coverage[]): Record<string, unknown> {
  const each = cards.map(figuresOf);
  const sums: Figures = { owed: 0, payment_available: 0, shortfall: 0, extra: 0, overspent: 0, carried: 0 };
  for (const k of FIGURES) sums[k] = sumMilliunits(each.map((f) => f[k]));
  return { count: cards.length, ...written(ctx, sums) };
}

export function creditCards(ctx: InsightContext, a: InsightArgs<typeof CREDIT_CARDS_INPUT>): InsightResult {
  const full = a.detail === 'full';
  const all = cardStates(ctx.view, ctx.today);
  const shown = all.filter((c) => c.account.type !== 'lineOfCredit' || a.include_lines_of_credit === true);
  // Most owed first (by name when equal: a fixed order).
  shown.sort((x, y) => x.account.balance - y.account.balance || (x.account.name < y.account.name ? -1 : 1));
  const left = all.filter((c) => !shown.includes(c));
  return {
    structured: {
      as_of: ctx.today,
      cards: shown.map((c) => row(ctx, c, full)),
      totals: totals(ctx, shown),
      ...(left.length ? { left_out: Object.fromEntries(left.map((c) => [c.account.name, 'a line of credit: include_lines_of_credit: true lists it'])) } : {}),
    },
  };
}
