/**
 * The `alerts` tool's arguments and handler: for hosts without the Events extension, "what changed
 * since I last asked" (a cursor kept per user and budget, or given) and the alert settings (types,
 * a threshold, quiet hours, the weekly digest's day and hour, a time zone). Answered by the events
 * (src/events/alerts.ts) through the port the protocol layer gives (pipeline.ts: AlertsPort); the
 * settings are the user's, not the budget's, so nothing here is a write to YNAB.
 */
import * as z from 'zod';
import { EVENT_MONEY_FIELDS } from '../../shared/event-money.js';
import { taskRead } from '../pipeline/task.js';

/**
 * The settings' keys, typed loosely (issue 43: properties, not prose): what they may hold beyond a
 * type (event names, hours, an IANA zone) is checked by src/events/settings.ts, a layer above.
 */
const SETTINGS = z
  .looseObject({
    types: z.array(z.string()).nullable().optional().describe('Event types to show (default all).'),
    min_milliunits: z.int().nullable().optional().describe('Only alerts of at least this many milliunits.'),
    quiet_hours: z.looseObject({ from: z.int(), to: z.int() }).nullable().optional().describe('Hours 0-23 when webhooks wait, e.g. {from: 22, to: 7}.'),
    digest_day: z.int().nullable().optional().describe('Weekly digest day: 1 = Monday … 7.'),
    digest_hour: z.int().nullable().optional().describe('0-23.'),
    time_zone: z.string().nullable().optional().describe('IANA, e.g. Europe/Berlin.'),
  })
  .describe('Changes to alert settings; null removes one.');

const INPUT = {
  cursor: z.string().max(200).optional().describe('Since this cursor instead of since the last call.'),
  settings: SETTINGS.optional(),
};

export const ALERTS = taskRead({
  input: INPUT,
  read: async (ctx, a) => {
    if (!ctx.alerts) throw new Error('alerts are not served here');
    const answer = await ctx.alerts.answer(ctx.budgetId, a);
    return Array.isArray(answer.alerts)
      ? { ...answer, alerts: answer.alerts.map((row: Record<string, unknown>) => quotableAlert(ctx.shown.money, row)) }
      : answer;
  },
});

/**
 * An alert's money beside its text in the budget's currency: the occurrence keeps milliunits (its
 * webhooks' payload), the answer a model quotes from gives both (issue 43).
 */
export function quotableAlert(money: (m: number) => string, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k] = v;
    if (EVENT_MONEY_FIELDS.includes(k) && typeof v === 'number' && row[`${k}_formatted`] === undefined) out[`${k}_formatted`] = money(v);
  }
  return out;
}
