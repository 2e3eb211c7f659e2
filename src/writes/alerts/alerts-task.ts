/**
 * The `alerts` tool's arguments and handler: for hosts without the Events extension, "what changed
 * since I last asked" (a cursor kept per user and budget, or given) and the alert settings (types,
 * a threshold, quiet hours, the weekly digest's day and hour, a time zone). Answered by the events
 * (src/events/alerts.ts) through the port the protocol layer gives (pipeline.ts: AlertsPort); the
 * settings are the user's, not the budget's, so nothing here is a write to YNAB.
 */
import * as z from 'zod';
import { taskRead } from '../pipeline/task.js';

const SETTINGS = z
  .looseObject({})
  .describe(
    'Changes to alert settings: types [event types], min_milliunits, quiet_hours {from,to}, digest_day 1-7 (Mon=1), digest_hour 0-23, time_zone (IANA); null removes one.',
  );

const INPUT = {
  cursor: z.string().max(200).optional().describe('Since this cursor instead of since the last call.'),
  settings: SETTINGS.optional(),
};

export const ALERTS = taskRead({
  input: INPUT,
  read: async (ctx, a) => {
    if (!ctx.alerts) throw new Error('alerts are not served here');
    const answer = await ctx.alerts.answer(ctx.budgetId, a);
    return Array.isArray(answer.alerts) ? { ...answer, alerts: answer.alerts.map((row: Record<string, unknown>) => quotable(ctx.shown.money, row)) } : answer;
  },
});

/**
 * An alert's amount beside its text in the budget's currency: the occurrence keeps milliunits (its
 * webhooks' payload), the answer a model quotes from gives both (issue 43).
 */
function quotable(money: (m: number) => string, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = v;
    if (k === 'amount' && typeof v === 'number' && row.amount_formatted === undefined) out.amount_formatted = money(v);
  }
  return out;
}
