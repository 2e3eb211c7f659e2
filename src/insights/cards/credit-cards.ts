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

/** The card's figures, each in milliunits with its text beside it. */
function figures(ctx: InsightContext, c: Coverage): Record<string, number | string> {
  const owed = Math.max(0, -c.account.balance);
  const overspent = sumMilliunits(c.overspent.map((o) => o.amount));
  return {
    ...ctx.money('owed', owed),
    ...ctx.money('payment_available', c.available),
    ...ctx.money('shortfall', Math.max(0, c.shortfall)),
    ...ctx.money('extra', Math.max(0, -c.shortfall)),
    // Why short: this month's overspending charged to the card (what of it the shortfall holds), the rest carried.
    ...ctx.money('overspent', Math.min(overspent, Math.max(0, c.shortfall))),
    ...ctx.money('carried', c.carried),
  };
}

function row(ctx: InsightContext, c: Coverage, full: boolean): Record<string, unknown> {
  const base = { ...(full ? { id: c.account.id } : {}), name: c.account.name, ...figures(ctx, c) };
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
function totals(ctx: InsightContext, rows: Record<string, unknown>[]): Record<string, unknown> {
  const sum = (name: string) => ctx.money(name, sumMilliunits(rows.map((r) => r[name] as number)));
  return { count: rows.length, ...sum('owed'), ...sum('payment_available'), ...sum('shortfall'), ...sum('extra'), ...sum('overspent'), ...sum('carried') };
}

export function creditCards(ctx: InsightContext, a: InsightArgs<typeof CREDIT_CARDS_INPUT>): InsightResult {
  const full = a.detail === 'full';
  const all = cardStates(ctx.view, ctx.today);
  const shown = all.filter((c) => c.account.type !== 'lineOfCredit' || a.include_lines_of_credit === true);
  // Most owed first (by name when equal: a fixed order).
  shown.sort((x, y) => x.account.balance - y.account.balance || (x.account.name < y.account.name ? -1 : 1));
  const cards = shown.map((c) => row(ctx, c, full));
  const left = all.filter((c) => !shown.includes(c));
  return {
    structured: {
      as_of: ctx.today,
      cards,
      totals: totals(ctx, cards),
      ...(left.length ? { left_out: Object.fromEntries(left.map((c) => [c.account.name, 'a line of credit: include_lines_of_credit: true lists it'])) } : {}),
    },
  };
}
